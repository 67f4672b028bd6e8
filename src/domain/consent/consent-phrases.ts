/**
 * What people write or say when they withdraw consent, ask for help, or opt back in: the data the
 * consent classifier reads, each row with where it comes from. Patterns run on the normalised message
 * (lower case, words separated by one space, apostrophes dropped: see message-text.ts), and use only
 * bounded repetition, so a hostile body costs time in proportion to its length.
 *
 * Sources:
 * - `fcc-24-18`: FCC Report and Order 24-18 (CG Docket 02-278, in force 11 April 2025), 47 CFR
 *   64.1200(a)(10)-(12): consent may be revoked "by any reasonable means"; "stop", "quit", "end",
 *   "revoke", "opt out", "cancel" and "unsubscribe" in reply to a text are a revocation, and other
 *   words are one when "a reasonable person would understand those words to have conveyed a request
 *   to revoke consent".
 * - `ctia`: CTIA Messaging Principles and Best Practices (2023), 5.1.2 and 5.1.3: STOP, END, CANCEL,
 *   UNSUBSCRIBE and QUIT opt out; HELP returns help; consumers may opt out in plain language.
 * - `carrier`: the carriers' standard keyword lists as Twilio applies them on long codes
 *   (STOPALL, OPTOUT, REVOKE; HELP, INFO; START, UNSTOP).
 */
export type ConsentVerdict = 'opt_out' | 'help' | 'opt_in' | 'reply'
export type PhraseSource = 'fcc-24-18' | 'ctia' | 'carrier'

/** A message, a sentence of it, or these with only filler words around them, that is exactly this keyword. */
export const KEYWORDS: ReadonlyArray<{ readonly words: readonly string[]; readonly verdict: Exclude<ConsentVerdict, 'reply'>; readonly source: PhraseSource }> = [
  { words: ['stop', 'quit', 'end', 'revoke', 'optout', 'cancel', 'unsubscribe'], verdict: 'opt_out', source: 'fcc-24-18' },
  { words: ['stopall'], verdict: 'opt_out', source: 'carrier' },
  // Words a reasonable person reads as STOP; Spanish, the most common other language of US leads, among them.
  { words: ['unsub', 'unsubscribed', 'remove', 'dnc', 'parar', 'alto', 'cancelar', 'detener', 'basta', 'baja'], verdict: 'opt_out', source: 'fcc-24-18' },
  { words: ['help', 'info', 'ayuda'], verdict: 'help', source: 'ctia' },
  { words: ['start', 'unstop'], verdict: 'opt_in', source: 'carrier' },
]

/**
 * Words that may stand around a keyword without changing it ("STOP please", "ok stop now thanks").
 * Not YES: "yes" alone is the commonest reply, and opting back in is the operator's (docs/texting.md).
 */
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  'please', 'pls', 'plz', 'plse', 'now', 'right', 'thanks', 'thank', 'you', 'thankyou', 'thx', 'ty', 'ok', 'okay', 'k', 'just', 'it',
  'all', 'asap', 'immediately', 'already', 'again', 'seriously', 'sir', 'maam', 'yes', 'yeah', 'no', 'nope', 'bye', 'goodbye',
  'por', 'favor', 'gracias', 'ya',
])

/** A phrase that withdraws consent wherever it stands in the message. */
export interface OptOutPhrase {
  readonly id: string
  readonly pattern: RegExp
  /** The phrase does not count when the words just before it match this (`"don't stop calling"`). */
  readonly unlessBefore?: RegExp
  /** …or when the words just after it match this (`"don't call me before 5"`: a time, not a revocation). */
  readonly unlessAfter?: RegExp
  readonly source: PhraseSource
  readonly example: string
}

const CONTACT_NOUNS = 'texts|txts|text messages|messages|msgs|calls|phone calls|robocalls|contact|emails|sms|sms messages|notifications|reminders|offers|marketing|solicitations|spam|junk|stuff|crap|garbage'
const CONTACT_VERBS = 'texting|txting|messaging|msging|calling|ringing|phoning|contacting|emailing|bothering|harassing|spamming|hounding|pestering|robocalling|reaching out|soliciting'
/** Words that may stand between "stop" and what is to stop: "stop sending me these texts". */
const BETWEEN = '(?:(?:sending|send|making|all|the|these|those|your|ur|with|me|us|my|any|of|them|this|that|automated|marketing|promotional|spam|future|further|more|text|phone)\\s){0,3}'
const NEGATION_BEFORE = /(?:^|\s)(?:dont|do not|never|didnt|did not|wont|will not|not|cant|cannot|why did you|why d you|when did you|did you)\s$/
/** A time or a circumstance after "don't call me": when to call, not whether. */
const TIMING_AFTER = /^\s(?:(?:me|us|back|on this number)\s){0,2}(?:before|after|until|till|til|between|during|today|tonight|tomorrow|yet|now|at work|at night|this morning|this afternoon|this evening|this week|in the morning|in the evening|on weekends|on the weekend|much|so early|so late|too early|too late|while|unless|instead|call|text|email|just call|only call|just text|only text)(?:\s|$)/
/** "you never call me back", "I don't text", "please call, don't text": a complaint, a habit or the other channel asked for. */
const SUBJECT_BEFORE = /(?:^|\s)(?:you|u|ya|i|we|they|he|she|it|that|which|who|(?:just |please |pls |only )?(?:call|text|email)(?: me)?)\s$/

export const OPT_OUT_PHRASES: readonly OptOutPhrase[] = [
  {
    id: 'stop_contacting', source: 'fcc-24-18', example: 'please stop texting me',
    pattern: new RegExp(`\\b(?:stop|quit|cease|halt|end|discontinue|pause)\\s${BETWEEN}(?:${CONTACT_VERBS}|${CONTACT_NOUNS})\\b`),
    unlessBefore: NEGATION_BEFORE,
  },
  { id: 'no_more_contact', source: 'fcc-24-18', example: 'no more texts', pattern: new RegExp(`\\bno (?:more|further)\\s${BETWEEN}(?:${CONTACT_NOUNS}|${CONTACT_VERBS})\\b`) },
  {
    id: 'do_not_contact', source: 'fcc-24-18', example: "don't contact me",
    pattern: /\b(?:dont|do not|never|pls dont|please dont|please do not|you may not|you cannot|stop trying to|quit trying to)\s(?:ever\s|again\s){0,2}(?:call|text|txt|contact|message|msg|email|ring|phone|bother|sms|reach out to|reach)\b/,
    unlessBefore: SUBJECT_BEFORE,
    unlessAfter: TIMING_AFTER,
  },
  {
    id: 'do_not_want', source: 'fcc-24-18', example: "I don't want any more calls",
    pattern: new RegExp(`\\b(?:dont|do not|no longer|never)\\s(?:want|wish|need)\\s(?:to (?:receive|get|be getting)\\s)?(?:any more\\s|anymore\\s)?${BETWEEN}(?:${CONTACT_NOUNS})\\b`),
    unlessAfter: TIMING_AFTER,
  },
  { id: 'do_not_call_list', source: 'fcc-24-18', example: 'put me on your do not call list', pattern: /\b(?:do not call|dont call|dnc|no call|do not contact)(?:\slist|\sregistry|\sregister)\b/ },
  { id: 'unsubscribe', source: 'ctia', example: 'how do I unsubscribe', pattern: /\b(?:unsubscribe|unsubscribed|unsubscribing|unsub|opt out|optout|opting out|opted out|opt me out|stopall)\b/ },
  {
    id: 'revoke_consent', source: 'fcc-24-18', example: 'I revoke my consent',
    pattern: /\b(?:revoke|revoking|revoked|withdraw|withdrawing|withdrew|rescind|rescinding|cancel|cancelling|canceling)\s(?:my\s|all\s|any\s|your\s){0,2}(?:consent|permission|authorization|authorisation|subscription)\b/,
  },
  { id: 'no_consent', source: 'fcc-24-18', example: 'I do not consent', pattern: /\b(?:dont|do not|never|did not|didnt)\s(?:consent|agree to (?:this|be contacted|these|texts|calls))\b/ },
  {
    id: 'remove_me', source: 'ctia', example: 'remove me from your list',
    pattern: /\b(?:remove|delete|erase|scrub)\s(?:me|us|my (?:number|name|info|information|details|contact|contact info|data|phone|phone number|cell|number from)|this (?:number|phone)|our number)\b/,
  },
  { id: 'take_me_off', source: 'ctia', example: 'take me off your list', pattern: /\btake\s(?:me|us|my (?:number|name|info|phone)|this (?:number|phone)|our number)\soff\b/ },
  { id: 'off_your_list', source: 'ctia', example: 'off your list', pattern: /\boff\s(?:of\s)?(?:your|ur|the|this|their)\s(?:[a-z]{1,12}\s){0,2}list\b/ },
  {
    id: 'wrong_number', source: 'fcc-24-18', example: 'wrong number',
    pattern: /\b(?:wrong (?:number|num|nmbr|person|phone|guy|girl|lady|man)|not (?:my|the right) number|no one by that name|nobody by that name|numero equivocado)\b|^wrong$/,
    // "the wrong number of shingles": a count, not a person.
    unlessAfter: /^\s(?:of|on the|in the|for the)\s/,
  },
  {
    id: 'never_signed_up', source: 'fcc-24-18', example: 'I never signed up for this',
    pattern: /\b(?:never\s(?:ever\s)?(?:signed up|sign up|signup|(?:asked for|requested|filled|submitted|applied for)(?=\s(?:this|these|that|it|texts|calls|messages|any|anything|your|to be|a call|out|in)\b|$)|opted in|gave (?:you|out) my|gave permission|gave consent|agreed)|(?:didnt|did not|dont remember|do not remember)\s(?:ever\s)?(?:sign up|signup|signing up|signed up|opt in|opting in|opted in|give (?:you|out) my|giving you my|give permission|give consent|ask for (?:this|these|texts|calls|that|any)))\b/,
  },
  {
    id: 'leave_me_alone', source: 'fcc-24-18', example: 'leave me alone',
    pattern: /\b(?:leave (?:me|us|my family) alone|lose my number|forget my number|forget this number|fuck off|f off|piss off|eff off|this is harassment|im going to report you|reporting you|report you to the ftc)\b|^go away$/,
  },
  { id: 'not_contact_again', source: 'fcc-24-18', example: 'never contact me again', pattern: /\b(?:never|dont|do not)\s(?:want to|wanna)\s(?:hear from you|be (?:contacted|called|texted))\b/ },
  {
    id: 'spanish', source: 'fcc-24-18', example: 'no me llame mas',
    pattern: /\b(?:no me (?:llame|llames|llamen|escriba|escribas|escriban|envie|envies|envien|contacte|contactes|contacten|moleste|molestes|molesten)|deja de (?:llamar|escribir|enviar|molestar)|dejen de (?:llamar|escribir|enviar|molestar)|no mas (?:mensajes|llamadas|textos)|borrame|borrenme|quitame|quitenme|darme de baja|dar de baja)\b/,
  },
]
