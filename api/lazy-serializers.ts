// Response serializers compiled when first used, not when the app starts. fast-json-stringify
// writes a serializer's code for each route and status when Fastify gets ready: about 2 s of
// CPU for this API's response schemas, while a test's app answers a handful of routes and an API
// that has just started must answer /ready and its first requests. Each serializer
// is the one fast-json-stringify builds from the same schema and options, built on the first
// answer that needs it; `warm()` builds the rest a few at a time, giving way to requests between
// them (api/server.ts calls it once it listens, so a schema fast-json-stringify refuses still
// shows up at start, in the log).
import { setImmediate as turn } from 'node:timers/promises';
import {
  SerializerSelector,
  type RouteDefinition,
  type Serializer,
  type SerializerFactory,
} from '@fastify/fast-json-stringify-compiler';

export interface LazySerializers {
  /** For Fastify's `schemaController.compilersFactory.buildSerializer`. */
  buildSerializer: SerializerFactory;
  /** How many serializers are still to build. */
  pending(): number;
  /** Builds every serializer not built yet, one per turn of the event loop; resolves with how many. */
  warm(): Promise<number>;
}

export function lazySerializers(): LazySerializers {
  const unbuilt = new Set<() => Serializer>();
  const buildSerializer: SerializerFactory = (externalSchemas, serializerOpts) => {
    const compile = SerializerSelector()(externalSchemas, serializerOpts);
    return (route: RouteDefinition): Serializer => {
      let serialize: Serializer | undefined;
      const build = (): Serializer => {
        serialize ??= compile(route);
        unbuilt.delete(build);
        return serialize;
      };
      unbuilt.add(build);
      return (data) => (serialize ?? build())(data);
    };
  };
  return {
    buildSerializer,
    pending: () => unbuilt.size,
    async warm() {
      let built = 0;
      for (const build of [...unbuilt]) {
        if (!unbuilt.has(build)) continue; // a request built it meanwhile
        build();
        built++;
        await turn();
      }
      return built;
    },
  };
}
