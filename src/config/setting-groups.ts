/**
 * Groups of settings whose every problem names its key and says why: valibot's own words for a
 * missing key ("Invalid key: Expected …") give no reason, so a required setting carries its own.
 */
import * as v from 'valibot';

/** A setting that must be set where it appears, and what to say when it is not. */
export function required<const TSchema extends v.GenericSchema>(schema: TSchema, whenMissing: string) {
  return v.pipe(schema, v.metadata({ whenMissing }));
}

function whenMissingOf(schema: v.GenericSchema): string | undefined {
  const { whenMissing } = v.getMetadata(schema) as { whenMissing?: unknown };
  return typeof whenMissing === 'string' ? whenMissing : undefined;
}

/** Settings that are never taken where they appear: set, each is refused with `message`, never ignored. */
export function refused<const TName extends string>(names: readonly TName[], message: string) {
  const never = v.optional(v.never(message));
  return Object.fromEntries(names.map((name) => [name, never])) as { [Name in TName]: typeof never };
}

/** An object of settings; a required one that is missing is named with what its `required` says. */
export function settingsObject<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.object(entries, (issue) => {
    const key = issue.path?.[0]?.key;
    const missing = typeof key === 'string' && Object.hasOwn(entries, key) ? entries[key] : undefined;
    return (missing === undefined ? undefined : whenMissingOf(missing)) ?? issue.message;
  });
}

/** What the settings schemas here are made of: objects, joined by variants and intersections. */
interface SettingsShape {
  readonly type: string;
  readonly entries?: v.ObjectEntries;
  readonly options?: readonly SettingsShape[];
}

/** The entries of the objects a settings schema is made of, through its variants and intersections. */
function* entriesOf(schema: SettingsShape): Generator<v.ObjectEntries> {
  if (schema.entries !== undefined) yield schema.entries;
  else if ((schema.type === 'variant' || schema.type === 'intersect') && schema.options !== undefined) {
    for (const option of schema.options) yield* entriesOf(option);
  }
}

/** The names of the settings a schema is made of (the type below is the same at compile time). */
export function settingNames<const TSchemas extends readonly SettingsShape[]>(...schemas: TSchemas): SettingNames<TSchemas[number]>[] {
  const names = new Set<string>();
  for (const schema of schemas) for (const entries of entriesOf(schema)) for (const name of Object.keys(entries)) names.add(name);
  return [...names] as SettingNames<TSchemas[number]>[];
}

export type SettingNames<TSchema> = TSchema extends { readonly entries: infer Entries }
  ? keyof Entries & string
  : TSchema extends { readonly options: readonly (infer Option)[] }
    ? SettingNames<Option>
    : never;
