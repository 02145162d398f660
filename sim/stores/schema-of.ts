/**
 * The JSON Schema of a store spec, in the one shape every store kind's has:
 * its `kind`, its node `name` (with the default the trace uses), for a store
 * that runs on one server the `machine` it runs on, then its own settings.
 * No other field is allowed, so a misspelt setting is named, not ignored.
 */
export function storeSchema(spec: {
  readonly kind: string;
  readonly description: string;
  /** The node name's default, and what it names. */
  readonly name: { readonly default: string; readonly description?: string };
  /** What the machine is, for a store on one server; absent for a store on every machine or on several nodes. */
  readonly machine?: { readonly description?: string; readonly required?: boolean };
  readonly properties?: Readonly<Record<string, unknown>>;
}): Record<string, unknown> {
  const named = (base: Record<string, unknown>, description: string | undefined) => (description === undefined ? base : { ...base, description });
  return {
    type: 'object',
    additionalProperties: false,
    required: spec.machine === undefined || spec.machine.required === false ? ['kind'] : ['kind', 'machine'],
    description: spec.description,
    properties: {
      kind: { const: spec.kind },
      name: named({ $ref: '#/definitions/name', default: spec.name.default }, spec.name.description),
      ...(spec.machine === undefined ? {} : { machine: named({ $ref: '#/definitions/name' }, spec.machine.description) }),
      ...spec.properties,
    },
  };
}
