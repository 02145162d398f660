/*
 * The shape of a lesson's front matter and of its lesson.yaml, as JSON
 * Schema. Ajv checks the shape and names the field; parse.ts then checks
 * what a schema cannot say (ids that must exist, one right answer, queries
 * that find an event).
 */

const id = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,47}$' };
const text = { type: 'string', minLength: 1 };
const claimId = { type: 'string', pattern: '^C[0-9]{1,3}$' };
const setMap = { type: 'object', additionalProperties: true };

const query: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { anyOf: [text, { type: 'array', items: text, minItems: 1 }] },
    actor: text,
    machine: text,
    owner: text,
    peer: text,
    fence: { type: 'integer' },
    reason: text,
    holds: { type: 'boolean' },
    after: { $ref: '#/definitions/query' },
    before: { $ref: '#/definitions/query' },
    nth: { type: 'integer', not: { const: 0 } },
  },
};

/** Each statement is an object with one key; its inner shape is checked by parse.ts, which can say more. */
const expectList = { type: 'array', items: { type: 'object', minProperties: 1, maxProperties: 1 } };

const option = {
  type: 'object',
  additionalProperties: false,
  required: ['text', 'correct', 'why'],
  properties: { text, correct: { type: 'boolean' }, why: text, expect: expectList },
};

const runRef = {
  scenario: id,
  set: setMap,
  addFaults: { type: 'array', items: { type: 'object' } },
};

const question = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'prompt', 'options'],
  properties: {
    id,
    prompt: text,
    multi: { type: 'boolean' },
    options: { type: 'array', items: option, minItems: 2 },
    predict: { type: 'object', additionalProperties: false, required: ['scenario'], properties: runRef },
  },
};

const knob = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'label', 'kind'],
  properties: {
    id,
    label: text,
    kind: { enum: ['number', 'boolean', 'choice', 'fault'] },
    path: text,
    min: { type: 'number' },
    max: { type: 'number' },
    step: { type: 'number', exclusiveMinimum: 0 },
    unit: text,
    choices: {
      type: 'array',
      minItems: 2,
      items: { type: 'object', additionalProperties: false, required: ['value', 'label'], properties: { value: {}, label: text } },
    },
    faults: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['label', 'fault'],
        properties: { label: text, fault: { type: 'object' }, edit: { type: 'array', items: text } },
      },
    },
  },
};

export const frontMatterSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Locklab lesson front matter',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'title', 'summary', 'claims'],
  properties: {
    id,
    title: text,
    summary: text,
    prerequisites: { type: 'array', items: id },
    claims: { type: 'array', items: claimId, minItems: 1 },
  },
};

export const lessonDataSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Locklab lesson data (lesson.yaml)',
  type: 'object',
  additionalProperties: false,
  required: ['scenarios', 'shows', 'quiz'],
  definitions: { query },
  properties: {
    scenarios: {
      type: 'object',
      minProperties: 1,
      propertyNames: id,
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'seed'],
        properties: { file: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*\\.json$' }, seed: { type: 'integer', minimum: 0, maximum: 4294967295 } },
      },
    },
    shows: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['claims', 'scenario', 'says', 'expect'],
        properties: { claims: { type: 'array', items: claimId, minItems: 1 }, ...runRef, says: text, precisely: text, expect: { ...expectList, minItems: 1 } },
      },
    },
    stories: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'scenario', 'stops'],
        properties: {
          id,
          title: text,
          scenario: id,
          notReal: text,
          notOnSymfony: text,
          racy: text,
          stops: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['id', 'at', 'text'],
              properties: {
                id,
                at: { $ref: '#/definitions/query' },
                text,
                set: setMap,
                expect: { ...expectList, minItems: 1 },
                ask: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['prompt', 'options'],
                  properties: { prompt: text, multi: { type: 'boolean' }, options: { type: 'array', items: option, minItems: 2 } },
                },
              },
            },
          },
          tries: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['id', 'label', 'set', 'says', 'expect'],
              properties: { id, label: text, set: { ...setMap, minProperties: 1 }, says: text, expect: { ...expectList, minItems: 1 } },
            },
          },
        },
      },
    },
    quiz: { type: 'array', items: question },
    challenges: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'type', 'goal', 'scenario', 'knobs', 'success', 'hints', 'solution', 'explain'],
        properties: {
          id,
          title: text,
          type: { enum: ['break', 'fix', 'cheapest'] },
          goal: text,
          scenario: id,
          knobs: { type: 'array', items: knob, minItems: 1 },
          success: { ...expectList, minItems: 1 },
          seeds: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0, maximum: 4294967295 } },
          maxChanges: { type: 'integer', minimum: 1 },
          hints: { type: 'array', items: text, minItems: 1 },
          solution: {
            type: 'object',
            additionalProperties: false,
            properties: {
              set: setMap,
              addFault: {
                type: 'object',
                additionalProperties: false,
                required: ['choice'],
                properties: { choice: { type: 'integer', minimum: 0 }, fields: { type: 'object', additionalProperties: { type: 'number' } } },
              },
            },
          },
          explain: text,
        },
      },
    },
    sweeps: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'scenario', 'vary', 'runs', 'caption'],
        properties: {
          id,
          title: text,
          scenario: text,
          vary: { type: 'array', items: text, minItems: 1 },
          runs: { type: 'integer', minimum: 1 },
          caption: text,
        },
      },
    },
    textOnly: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['claim', 'reason'], properties: { claim: claimId, reason: text } },
    },
    pending: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['claim', 'needs', 'part'],
        properties: { claim: claimId, needs: text, part: { enum: ['all', 'part'] } },
      },
    },
  },
};
