// The industry-specific field lists of spec §2.1 rule 2 ("contents not
// shown": these are ours). A field a vendor sends that is not a core alias is
// stored under a canonical key when it matches the account's industry list,
// so `Avg Bill` and `monthly_electric_bill` land in one place.

import { canonicalFieldName } from './field-aliases.ts'

export const INDUSTRIES = ['insurance', 'real_estate', 'solar', 'home_services', 'auto'] as const

export type Industry = (typeof INDUSTRIES)[number]

export interface IndustryField {
  /** Canonical snake_case key, stable across vendors. */
  key: string
  /** Human label for screens and the assistant's prompt. */
  label: string
  /** Loose names vendors use; matched after canonicalFieldName. The key and label match too. */
  aliases: readonly string[]
}

const field = (key: string, label: string, ...aliases: string[]): IndustryField => ({ key, label, aliases })

// Core aliases (name, phone, state, date, city, zip, address, ...) win before
// these lists are consulted, so none of them appear here.
export const INDUSTRY_FIELDS: Readonly<Record<Industry, readonly IndustryField[]>> = {
  insurance: [
    field('coverage_type', 'Coverage type', 'insurance type', 'policy type', 'product', 'line of business', 'type of insurance'),
    field('current_carrier', 'Current carrier', 'carrier', 'current insurer', 'insurance company', 'current insurance company', 'current insurance'),
    field('currently_insured', 'Currently insured', 'insured', 'has insurance', 'current coverage', 'is insured'),
    field('coverage_amount', 'Coverage amount', 'face amount', 'desired coverage', 'death benefit', 'coverage'),
    field('household_size', 'Household size', 'household', 'family size', 'number in household', 'people in household'),
    field('household_income', 'Household income', 'income', 'annual income', 'yearly income'),
    field('gender', 'Gender', 'sex'),
    field('tobacco_use', 'Tobacco use', 'tobacco', 'smoker', 'smoking status', 'uses tobacco'),
    field('height', 'Height', 'height in inches'),
    field('weight', 'Weight', 'weight lbs', 'weight in pounds'),
    field('medical_conditions', 'Medical conditions', 'pre-existing conditions', 'preexisting conditions', 'health conditions', 'conditions'),
    field('policy_expiration', 'Policy expiration', 'expiration date', 'renewal date', 'x date', 'x-date', 'policy renewal date'),
  ],
  real_estate: [
    field('buyer_or_seller', 'Buyer or seller', 'buying or selling', 'lead type', 'intent', 'buy or sell'),
    field('property_address', 'Property address', 'listing address', 'subject property', 'property'),
    field('property_type', 'Property type', 'home type', 'type of home', 'type of property'),
    field('bedrooms', 'Bedrooms', 'beds', 'bedroom count', 'number of bedrooms', 'bed'),
    field('bathrooms', 'Bathrooms', 'baths', 'bathroom count', 'number of bathrooms', 'bath'),
    field('price_min', 'Minimum price', 'min price', 'price min', 'minimum price', 'budget min'),
    field('price_max', 'Maximum price', 'max price', 'price max', 'maximum price', 'budget max', 'budget', 'price range'),
    field('timeframe', 'Timeframe', 'time frame', 'timeline', 'moving timeline', 'when are you looking to move'),
    field('preapproved', 'Pre-approved for mortgage', 'pre-approved', 'pre approved', 'mortgage pre-approved', 'mortgage preapproved', 'financing'),
    field('has_agent', 'Working with an agent', 'working with an agent', 'working with agent', 'agent', 'has an agent'),
    field('desired_location', 'Desired location', 'preferred area', 'neighborhood', 'area of interest', 'desired area'),
    field('estimated_home_value', 'Estimated home value', 'home value', 'property value', 'estimated value'),
    field('square_feet', 'Square feet', 'sq ft', 'sqft', 'square footage', 'sq. ft.'),
  ],
  solar: [
    field('monthly_electric_bill', 'Monthly electric bill', 'electric bill', 'avg bill', 'average bill', 'average electric bill', 'avg electric bill', 'power bill', 'monthly bill', 'utility bill'),
    field('homeowner', 'Homeowner', 'home owner', 'own home', 'owns home', 'do you own your home', 'own or rent'),
    field('roof_type', 'Roof type', 'roofing material', 'roof material', 'roofing type'),
    field('roof_age', 'Roof age', 'age of roof', 'roof age years'),
    field('roof_shade', 'Roof shade', 'shade', 'shading', 'sun exposure', 'roof shading'),
    field('utility_provider', 'Utility provider', 'utility company', 'utility', 'electric company', 'electric provider', 'electric utility', 'power company'),
    field('credit_score', 'Credit score', 'credit rating', 'credit'),
    field('property_type', 'Property type', 'home type', 'type of home'),
    field('annual_kwh_usage', 'Annual kWh usage', 'annual usage', 'annual kwh', 'kwh usage', 'yearly usage'),
    field('installation_timeframe', 'Installation timeframe', 'timeframe', 'time frame', 'install timeframe', 'timeline'),
    field('interested_in_battery', 'Interested in battery', 'battery', 'battery storage', 'battery backup'),
  ],
  home_services: [
    field('service_type', 'Service type', 'service', 'service needed', 'service requested', 'job type', 'type of service'),
    field('project_description', 'Project description', 'description', 'project details', 'job description', 'job details', 'details'),
    field('urgency', 'Urgency', 'how soon', 'timeframe', 'time frame', 'when do you need service'),
    field('preferred_date', 'Preferred date', 'appointment date', 'preferred appointment date', 'service date'),
    field('preferred_time', 'Preferred time', 'best time to call', 'best time', 'appointment time', 'preferred time of day'),
    field('homeowner', 'Homeowner', 'home owner', 'own home', 'owns home', 'own or rent'),
    field('property_type', 'Property type', 'home type', 'residential or commercial'),
    field('square_feet', 'Square feet', 'sq ft', 'sqft', 'square footage', 'home size'),
    field('budget', 'Budget', 'estimated budget', 'price range', 'project budget'),
    field('system_age', 'System age', 'age of system', 'unit age', 'equipment age'),
    field('contact_method', 'Preferred contact method', 'preferred contact method', 'contact preference', 'best way to contact'),
  ],
  auto: [
    field('vehicle_year', 'Vehicle year', 'year', 'car year', 'model year'),
    field('vehicle_make', 'Vehicle make', 'make', 'car make'),
    field('vehicle_model', 'Vehicle model', 'model', 'car model'),
    field('vehicle_trim', 'Vehicle trim', 'trim', 'trim level'),
    field('vin', 'VIN', 'vehicle vin', 'vin number', 'vehicle identification number'),
    field('mileage', 'Mileage', 'miles', 'odometer', 'current mileage'),
    field('new_or_used', 'New or used', 'new/used', 'condition', 'vehicle condition'),
    field('trade_in', 'Trade-in', 'trade in', 'tradein', 'has trade-in', 'has trade in', 'trade in vehicle'),
    field('financing', 'Financing', 'finance', 'payment type', 'financing type', 'cash or finance'),
    field('down_payment', 'Down payment', 'down', 'down payment amount'),
    field('monthly_payment', 'Desired monthly payment', 'monthly payment', 'payment budget', 'target payment'),
    field('purchase_timeframe', 'Purchase timeframe', 'timeframe', 'time frame', 'timeline', 'when are you looking to buy'),
    field('credit_score', 'Credit score', 'credit rating', 'credit'),
  ],
}

// One Map per industry, built once; Maps so names like `constructor` cannot hit Object.prototype.
const INDEX: ReadonlyMap<string, ReadonlyMap<string, IndustryField>> = new Map(
  INDUSTRIES.map((industry) => {
    const byName = new Map<string, IndustryField>()
    for (const entry of INDUSTRY_FIELDS[industry]) {
      for (const name of [entry.key, entry.label, ...entry.aliases]) {
        const key = canonicalFieldName(name)
        if (!byName.has(key)) byName.set(key, entry)
      }
    }
    return [industry, byName]
  }),
)

/** The account's industry as one of INDUSTRIES (`Real Estate` → `real_estate`), or undefined. */
export function resolveIndustry(industry: string | null | undefined): Industry | undefined {
  if (industry === null || industry === undefined) return undefined
  const key = canonicalFieldName(industry).replace(/ /g, '_')
  return INDUSTRIES.find((known) => known === key)
}

/** The industry field an input name matches for the account's industry, or undefined. */
export function matchIndustryField(industry: string | null | undefined, name: string): IndustryField | undefined {
  const known = resolveIndustry(industry)
  if (known === undefined) return undefined
  return INDEX.get(known)?.get(canonicalFieldName(name))
}
