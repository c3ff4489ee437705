import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer'];
type Serialize = (data: unknown) => string;

const buildSerializer = SerializerSelector();
/** Compiled response serializers by (shared schemas, options, route schema) text. */
const compiled = new Map<string, Serialize>();
/** Each distinct set of shared schemas and options, numbered, so cache keys stay short. */
const contexts = new Map<string, number>();

/**
 * Fastify's own serializer factory (fast-json-stringify), with what it compiles kept for the
 * process: an app that is built again (the test suite builds hundreds, one per file or test)
 * reuses the functions its route schemas compiled to instead of generating and evaluating them
 * again. The key is the schemas' text, not their identity, so a schema rebuilt as an equal
 * object hits too and a changed one never does. A server builds one app: nothing changes there.
 */
export const sharedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = buildSerializer(externalSchemas, options);
  const contextText = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let context = contexts.get(contextText);
  if (context === undefined) {
    context = contexts.size;
    contexts.set(contextText, context);
  }
  const prefix = `${context}\n`;
  return (route) => {
    const key = prefix + JSON.stringify(route.schema);
    let serialize = compiled.get(key);
    if (serialize === undefined) {
      serialize = compile(route) as Serialize;
      compiled.set(key, serialize);
    }
    return serialize;
  };
};
