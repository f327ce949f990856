/**
 * Codes that select an operation's records, where sites code them differently (issue 11, item 1):
 * an Assessment is an Observation of the category `survey` here and perhaps of a local code there.
 * The route table names a selector (`select: 'assessment-category'`); the site's configuration says
 * which codes it stands for, and the upstream query is built with them (src/pipeline/upstream-query.ts).
 */
import type { Config } from './config.ts';

interface SelectorDefinition {
  /** The FHIR search parameter the codes go in. */
  param: string;
  /** The configuration key a site sets them with. */
  configKey: 'ASSESSMENT_CATEGORY' | 'SDOH_GOAL_CATEGORY';
  /** Today's codes: a site that sets nothing is answered as before. */
  defaultCodes: string;
}

export const SITE_SELECTORS = {
  'assessment-category': { param: 'category', configKey: 'ASSESSMENT_CATEGORY', defaultCodes: 'survey' },
  'sdoh-goal-category': { param: 'category', configKey: 'SDOH_GOAL_CATEGORY', defaultCodes: 'sdoh' },
} as const satisfies Record<string, SelectorDefinition>;

export type SiteSelector = keyof typeof SITE_SELECTORS;

/** A FHIR token search value per selector: `code`, `system|code`, comma-separated for OR. */
export type SiteCodes = Readonly<Record<SiteSelector, string>>;

export const DEFAULT_SITE_CODES: SiteCodes = {
  'assessment-category': SITE_SELECTORS['assessment-category'].defaultCodes,
  'sdoh-goal-category': SITE_SELECTORS['sdoh-goal-category'].defaultCodes,
};

/** The site's codes, from its configuration (defaults applied there). */
export function siteCodesOf(config: Pick<Config, 'ASSESSMENT_CATEGORY' | 'SDOH_GOAL_CATEGORY'>): SiteCodes {
  return {
    'assessment-category': config[SITE_SELECTORS['assessment-category'].configKey],
    'sdoh-goal-category': config[SITE_SELECTORS['sdoh-goal-category'].configKey],
  };
}

/** The `[param, value]` a selector adds to an upstream query. */
export function selectorParam(selector: SiteSelector, codes: SiteCodes): [string, string] {
  return [SITE_SELECTORS[selector].param, codes[selector]];
}
