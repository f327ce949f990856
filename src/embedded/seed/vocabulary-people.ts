/**
 * Names and places for synthetic people. Deliberately ordinary and clearly fictional;
 * nothing here is or resembles real patient data.
 */

export const GIVEN_NAMES = {
  female: [
    'Alice',
    'Beatriz',
    'Chen',
    'Danielle',
    'Esther',
    'Fatima',
    'Grace',
    'Hannah',
    'Imani',
    'Julia',
    'Keiko',
    'Lucia',
    'Maya',
    'Nora',
    'Olivia',
    'Priya',
    'Rosa',
    'Sofia',
    'Tamar',
    'Yara',
  ],
  male: [
    'Aaron',
    'Bruno',
    'Carlos',
    'David',
    'Elijah',
    'Farid',
    'Gabriel',
    'Hiro',
    'Isaac',
    'Jamal',
    'Kevin',
    'Luis',
    'Marcus',
    'Nikhil',
    'Omar',
    'Peter',
    'Rafael',
    'Samuel',
    'Thomas',
    'Victor',
  ],
} as const;

export const FAMILY_NAMES = [
  'Abbott',
  'Bergstrom',
  'Castillo',
  'Delgado',
  'Eriksen',
  'Fontaine',
  'Goldberg',
  'Hashemi',
  'Ibarra',
  'Jensen',
  'Kowalski',
  'Lindqvist',
  'Mbeki',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quinlan',
  'Ramirez',
  'Sandoval',
  'Tanaka',
  'Underwood',
  'Vasquez',
  'Whitaker',
  'Xu',
  'Yilmaz',
  'Zimmerman',
] as const;

export const STREET_NAMES = [
  'Maple St',
  'Harbor Rd',
  'Elm Ave',
  'Chestnut St',
  'Pleasant St',
  'Mill Pond Ln',
  'Summer St',
  'Orchard Way',
  'Beacon St',
  'Cedar Ct',
] as const;

/** Massachusetts towns with their ZIP codes, to keep city/state/postalCode consistent. */
export const TOWNS = [
  { city: 'Worcester', postalCode: '01608' },
  { city: 'Springfield', postalCode: '01103' },
  { city: 'Lowell', postalCode: '01852' },
  { city: 'Quincy', postalCode: '02169' },
  { city: 'Framingham', postalCode: '01702' },
  { city: 'Salem', postalCode: '01970' },
  { city: 'Pittsfield', postalCode: '01201' },
  { city: 'Plymouth', postalCode: '02360' },
] as const;

export const STATE = 'MA';
export const COUNTRY = 'US';
/** 555-01xx numbers are reserved for fiction, so no real line can ever be dialled. */
export const FICTIONAL_PHONE_PREFIX = '555-01';

export const MARITAL_STATUSES = [
  { code: 'M', display: 'Married' },
  { code: 'S', display: 'Never Married' },
  { code: 'D', display: 'Divorced' },
  { code: 'W', display: 'Widowed' },
] as const;
