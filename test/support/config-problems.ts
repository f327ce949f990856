/** The problems a configuration is refused with (src/config.ts `ConfigError`), `[]` when accepted. */
import { ConfigError, parseConfig } from '../../src/config.ts';

export function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}
