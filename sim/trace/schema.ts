import { EVENT_KINDS, type DataType, type KindSpec } from './kinds.js';
import { TRACE_SCHEMA } from './types.js';

/*
 * The trace's JSON Schema, generated from the event-kind registry: each kind
 * is a branch with its own required fields, picked by `kind` (a discriminator,
 * so a bad event is reported against its own kind). `npm run schema` writes
 * it to docs/schema/trace.schema.json, and a test keeps that file current.
 */

const TIME = { $ref: '#/definitions/time' };

/** Every field an event may carry, with its type; which are required depends on the kind. */
const EVENT_FIELDS: Record<string, object> = {
  seq: { type: 'integer', minimum: 0, description: 'Position in the trace, from 0.' },
  timeUs: { ...TIME, description: 'True time.' },
  kind: { type: 'string' },
  actor: { type: 'string', minLength: 1, description: "The client, store node, 'resource', 'net' or 'faults'." },
  machine: { type: 'string', minLength: 1 },
  localUs: { type: 'integer', description: "The machine's own clock at that moment." },
  key: { type: 'string' },
  owner: { type: 'string', minLength: 1, description: 'Owner token of the acquisition: client:n.' },
  fence: { type: 'integer', description: 'Fencing token of that acquisition.' },
  ttlUs: { type: 'integer', minimum: 0 },
  peer: { type: 'string', description: 'The other party: store node for client events, client for store events.' },
  msg: { type: 'integer', minimum: 1, description: 'Ties a request, its handling and its reply.' },
  reason: { type: 'string' },
  believes: { $ref: '#/definitions/belief' },
  data: { type: 'object' },
};

const DATA_TYPES: Record<DataType, object> = {
  integer: { type: 'integer' },
  number: { type: 'number' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  'string[]': { type: 'array', items: { type: 'string' } },
  'string[][]': { type: 'array', items: { type: 'array', items: { type: 'string' } } },
  object: { type: 'object' },
};

function eventBranch(kind: string, spec: KindSpec): object {
  const properties: Record<string, object> = { ...EVENT_FIELDS, kind: { const: kind, description: spec.doc } };
  const required: string[] = ['seq', 'timeUs', 'kind', 'actor', 'machine', ...spec.required];
  if (spec.data !== undefined) {
    const dataProps = Object.fromEntries(Object.entries(spec.data).map(([k, t]) => [k, DATA_TYPES[t]]));
    properties.data = { type: 'object', required: Object.keys(spec.data), properties: dataProps };
    required.push('data');
  }
  return { type: 'object', additionalProperties: false, required, properties };
}

export function traceSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://locklab.dev/schema/trace/1.json',
    title: 'Locklab trace, version 1',
    description:
      'What one run did: the scenario and seed that produced it, every event in true-time order, and why the run stopped. Times are integer microseconds. Generated from sim/trace/kinds.ts; see docs/trace.md.',
    type: 'object',
    additionalProperties: false,
    required: ['schema', 'source', 'scenario', 'seed', 'stop', 'events'],
    properties: {
      schema: { const: TRACE_SCHEMA },
      source: { enum: ['sim', 'real'], description: 'sim: the simulator wrote it; real: the real runner, against real servers.' },
      scenario: { type: 'object', description: 'The scenario with every default filled in (docs/schema/scenario.schema.json).' },
      seed: { type: 'integer', minimum: 0 },
      stop: {
        type: 'object',
        additionalProperties: false,
        required: ['reason', 'events', 'timeUs'],
        properties: {
          reason: { enum: ['completed', 'event-budget', 'time-budget'] },
          events: { type: 'integer', minimum: 0, description: 'Kernel events processed (more than trace events: timers, deliveries).' },
          timeUs: TIME,
        },
      },
      partial: { const: true, description: 'The run was interrupted (a real run stopped with Ctrl-C): the events end early.' },
      events: { type: 'array', items: { $ref: '#/definitions/event' } },
      verdict: {
        type: 'object',
        required: ['outcome'],
        properties: { outcome: { enum: ['safe', 'fenced', 'unsafe'] } },
        description:
          'The checker’s verdict as the writer computed it. Derived from the events, not hashed; `locklab check` recomputes it and says when they differ.',
      },
    },
    definitions: {
      time: { type: 'integer', minimum: 0 },
      belief: {
        type: 'object',
        additionalProperties: false,
        required: ['holds'],
        description: 'What the actor (a client) believes at that moment.',
        properties: {
          holds: { type: 'boolean' },
          owner: { type: 'string', minLength: 1 },
          fence: { type: 'integer' },
          shared: { const: true },
          ttlLeftUs: { type: 'integer', description: 'Lease left by the client’s own clock; negative once run out; absent for locks that do not expire.' },
        },
        // A client that believes it holds the lock says as which owner: the checker pairs beliefs with holdings by it.
        if: { properties: { holds: { const: true } } },
        then: { required: ['holds', 'owner'] },
      },
      event: {
        type: 'object',
        required: ['kind'],
        discriminator: { propertyName: 'kind' },
        oneOf: Object.entries(EVENT_KINDS).map(([kind, spec]) => eventBranch(kind, spec)),
      },
    },
  };
}
