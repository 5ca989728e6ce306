// Thin objection models: table names and relations only. Column names are mapped between
// camelCase and snake_case by the knex instance (db/connection.ts), so models need no mappers.
// Business rules live in domain/; queries that need care (locks, cursors) live in db/queries/.
import { Model } from 'objection';

export class BaseModel extends Model {}
