/**
 * The checker refuses a trace that lacks what one of its invariants needs,
 * rather than guessing that the run was safe. The error names the event and
 * the field.
 */
export class CheckError extends Error {
  constructor(
    readonly seq: number,
    readonly field: string,
    readonly detail: string,
  ) {
    super(`events[${seq}].${field}: ${detail}`);
    this.name = 'CheckError';
  }
}
