// US state names and postal codes, so `California`, `ca` and `CA` all store
// as `CA` and calling-hours rules can key on one spelling.

const STATES: ReadonlyArray<readonly [code: string, name: string]> = [
  ['AL', 'Alabama'], ['AK', 'Alaska'], ['AZ', 'Arizona'], ['AR', 'Arkansas'],
  ['CA', 'California'], ['CO', 'Colorado'], ['CT', 'Connecticut'], ['DE', 'Delaware'],
  ['FL', 'Florida'], ['GA', 'Georgia'], ['HI', 'Hawaii'], ['ID', 'Idaho'],
  ['IL', 'Illinois'], ['IN', 'Indiana'], ['IA', 'Iowa'], ['KS', 'Kansas'],
  ['KY', 'Kentucky'], ['LA', 'Louisiana'], ['ME', 'Maine'], ['MD', 'Maryland'],
  ['MA', 'Massachusetts'], ['MI', 'Michigan'], ['MN', 'Minnesota'], ['MS', 'Mississippi'],
  ['MO', 'Missouri'], ['MT', 'Montana'], ['NE', 'Nebraska'], ['NV', 'Nevada'],
  ['NH', 'New Hampshire'], ['NJ', 'New Jersey'], ['NM', 'New Mexico'], ['NY', 'New York'],
  ['NC', 'North Carolina'], ['ND', 'North Dakota'], ['OH', 'Ohio'], ['OK', 'Oklahoma'],
  ['OR', 'Oregon'], ['PA', 'Pennsylvania'], ['RI', 'Rhode Island'], ['SC', 'South Carolina'],
  ['SD', 'South Dakota'], ['TN', 'Tennessee'], ['TX', 'Texas'], ['UT', 'Utah'],
  ['VT', 'Vermont'], ['VA', 'Virginia'], ['WA', 'Washington'], ['WV', 'West Virginia'],
  ['WI', 'Wisconsin'], ['WY', 'Wyoming'],
  // Dialable US jurisdictions that are not states but appear in lead forms.
  ['DC', 'District of Columbia'], ['PR', 'Puerto Rico'], ['GU', 'Guam'],
  ['VI', 'U.S. Virgin Islands'], ['AS', 'American Samoa'], ['MP', 'Northern Mariana Islands'],
]

const BY_KEY: ReadonlyMap<string, string> = (() => {
  const index = new Map<string, string>()
  for (const [code, name] of STATES) {
    index.set(code.toLowerCase(), code)
    index.set(stateKey(name), code)
  }
  index.set(stateKey('Virgin Islands'), 'VI')
  index.set(stateKey('Washington DC'), 'DC')
  return index
})()

// Dots and spacing vary (`U.S.`, `new  york`); compare without them.
function stateKey(text: string): string {
  return text.toLowerCase().replace(/\./g, '').replace(/\s+/g, ' ').trim()
}

/** The two-letter code for a US state name or code, or undefined when it is neither. */
export function usStateCode(text: string): string | undefined {
  return BY_KEY.get(stateKey(text))
}
