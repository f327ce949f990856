/** The service could not start because of how it was started (a setting, an argument, the data); not a bug. */
export class StartError extends Error {
  override readonly name = 'StartError';
}
