import t from 'tap'
import { CORE_FIELD_ALIASES, canonicalFieldName } from '../../../../src/domain/lead/intake/field-aliases.ts'
import {
  INDUSTRIES,
  INDUSTRY_FIELDS,
  matchIndustryField,
  resolveIndustry,
} from '../../../../src/domain/lead/intake/industry-fields.ts'
import { nameVariants } from './fixtures/name-variants.ts'

const coreNames = new Set(Object.values(CORE_FIELD_ALIASES).flat().map(canonicalFieldName))

t.test('the five industries', async (t) => {
  t.same([...INDUSTRIES], ['insurance', 'real_estate', 'solar', 'home_services', 'auto'])
})

t.test('each list is 8–15 fields with unique snake_case keys, labels and aliases', async (t) => {
  for (const industry of INDUSTRIES) {
    const fields = INDUSTRY_FIELDS[industry]
    t.ok(fields.length >= 8 && fields.length <= 15, `${industry} has ${fields.length} fields`)
    const keys = fields.map((f) => f.key)
    t.equal(new Set(keys).size, keys.length, `${industry} keys are unique`)
    for (const field of fields) {
      t.match(field.key, /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, `${industry}.${field.key} is snake_case`)
      t.ok(field.label.length > 0, `${industry}.${field.key} has a label`)
      t.ok(field.aliases.length > 0, `${industry}.${field.key} has aliases`)
    }
  }
})

t.test('no name means two fields in one industry, and none shadows a core alias', async (t) => {
  for (const industry of INDUSTRIES) {
    const owner = new Map<string, string>()
    for (const field of INDUSTRY_FIELDS[industry]) {
      for (const name of [field.key, field.label, ...field.aliases].map(canonicalFieldName)) {
        const previous = owner.get(name)
        t.ok(previous === undefined || previous === field.key, `${industry}: "${name}" is ${previous ?? field.key}, not also ${field.key}`)
        owner.set(name, field.key)
        // A core alias is matched first, so an industry alias equal to one could never be reached.
        t.notOk(coreNames.has(name), `${industry}: "${name}" is not a core alias`)
      }
    }
  }
})

t.test('every key, label and alias, in every spelling, matches its field', async (t) => {
  let checked = 0
  for (const industry of INDUSTRIES) {
    for (const field of INDUSTRY_FIELDS[industry]) {
      for (const name of [field.key, field.label, ...field.aliases]) {
        for (const variant of nameVariants(name)) {
          t.equal(matchIndustryField(industry, variant)?.key, field.key, `${industry}: ${JSON.stringify(variant)}`)
          checked++
        }
      }
    }
  }
  t.ok(checked > 2000, `checked ${checked} names`)
})

t.test('realistic names per industry', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['solar', 'Monthly Electric Bill', 'monthly_electric_bill'],
    ['solar', 'electric_bill', 'monthly_electric_bill'],
    ['solar', 'Avg Bill', 'monthly_electric_bill'],
    ['solar', 'Homeowner', 'homeowner'],
    ['solar', 'roof type', 'roof_type'],
    ['solar', 'Utility Provider', 'utility_provider'],
    ['insurance', 'Current Carrier', 'current_carrier'],
    ['insurance', 'tobacco', 'tobacco_use'],
    ['insurance', 'Coverage Type', 'coverage_type'],
    ['insurance', 'household_size', 'household_size'],
    ['real_estate', 'Buying or Selling', 'buyer_or_seller'],
    ['real_estate', 'beds', 'bedrooms'],
    ['real_estate', 'Pre-Approved', 'preapproved'],
    ['real_estate', 'max_price', 'price_max'],
    ['home_services', 'Service Needed', 'service_type'],
    ['home_services', 'best_time_to_call', 'preferred_time'],
    ['home_services', 'Project Details', 'project_description'],
    ['auto', 'Vehicle Make', 'vehicle_make'],
    ['auto', 'VIN', 'vin'],
    ['auto', 'trade-in', 'trade_in'],
    ['auto', 'Trade In', 'trade_in'],
    ['auto', 'model', 'vehicle_model'],
  ]
  for (const [industry, name, key] of cases) t.equal(matchIndustryField(industry, name)?.key, key, `${industry}: ${name}`)
})

t.test('fields of one industry do not match in another', async (t) => {
  t.equal(matchIndustryField('insurance', 'avg bill'), undefined)
  t.equal(matchIndustryField('solar', 'vin'), undefined)
  t.equal(matchIndustryField('auto', 'roof type'), undefined)
  t.equal(matchIndustryField('real_estate', 'tobacco'), undefined)
  t.equal(matchIndustryField('home_services', 'bedrooms'), undefined)
})

t.test('unknown names and unknown industries match nothing', async (t) => {
  for (const name of ['favourite colour', 'constructor', '__proto__', 'prototype', 'toString', '']) {
    t.equal(matchIndustryField('solar', name), undefined, name)
  }
  t.equal(matchIndustryField(null, 'avg bill'), undefined)
  t.equal(matchIndustryField(undefined, 'avg bill'), undefined)
  t.equal(matchIndustryField('mortgage', 'avg bill'), undefined)
  t.equal(matchIndustryField('constructor', 'avg bill'), undefined)
})

t.test('industry names are matched loosely', async (t) => {
  t.equal(resolveIndustry('Real Estate'), 'real_estate')
  t.equal(resolveIndustry(' HOME_SERVICES '), 'home_services')
  t.equal(resolveIndustry('home  services'), 'home_services')
  t.equal(resolveIndustry('Solar'), 'solar')
  t.equal(resolveIndustry('realestate'), undefined)
  t.equal(resolveIndustry(null), undefined)
  t.equal(matchIndustryField('Real Estate', 'sqft')?.key, 'square_feet')
})
