// The reports and the audit log, one chunk.
export { Reports } from './Reports.tsx';
export { Audit } from '../audit/Audit.tsx';
