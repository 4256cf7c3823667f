/**
 * A failure the user can act on (a missing index, a bad option, a dataset that is not there): the CLI
 * prints its message alone and exits 1; anything else is a fault of cita's, printed with its stack
 * under CITA_DEBUG=1. ConfigError (pipeline/config/load.ts) is one.
 */
export class UserError extends Error {
  override name = 'UserError';
}
