/**
 * The scripted assistant's reading of what a person said: yes or no, and a time ("tomorrow at 3",
 * "Monday 10:30 am", "at 4 pm"), by simple rules in the person's zone (luxon). Anything else is
 * neither, and the script asks again or moves on.
 */
import { DateTime } from 'luxon'

const YES = /\b(yes|yeah|yep|yup|sure|ok|okay|of course|definitely|absolutely|please|go ahead|that works|sounds good|fine|correct|right)\b/i
const NO = /\b(no|nope|nah|not now|not really|not a good time|bad time|busy|later|don'?t)\b/i

export function yesOrNo(text: string): 'yes' | 'no' | null {
  const yes = YES.test(text)
  const no = NO.test(text)
  if (yes && !no) return 'yes'
  if (no && !yes) return 'no'
  return null
}

export function notInterested(text: string): boolean {
  return /\b(not interested|no longer interested|already (found|got|bought|hired)|changed my mind)\b/i.test(text)
}

export function wrongNumber(text: string): boolean {
  return /\b(wrong number|wrong person|never (asked|filled|requested|signed up)|didn'?t (ask|fill|request|sign up))\b/i.test(text)
}

export function wantsPerson(text: string): boolean {
  return /\b(person|human|someone|somebody|agent|representative|real|talk to|speak (to|with))\b/i.test(text)
}

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
const WORD_HOURS: Readonly<Record<string, number>> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, noon: 12 }

/**
 * The time a person named, in `zone`, after `now`; null when none was named. A bare hour from 1 to 7
 * without am/pm is read as the afternoon (people are called back in the day), 8 to 11 as the morning.
 */
export function spokenTimeAt(text: string, zone: string, now: Date): DateTime | null {
  const said = text.toLowerCase()
  const clock = /\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?(?=\W|$)/.exec(said.replace(/\b(noon)\b/, '12 pm'))
  const word = clock === null ? /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon)\b\s*(o'?clock)?\s*(a\.?m\.?|p\.?m\.?|in the morning|in the afternoon|in the evening)?/.exec(said) : null
  let hour: number
  let minute = 0
  let half: string | undefined
  if (clock !== null) {
    hour = Number(clock[1])
    minute = clock[2] === undefined ? 0 : Number(clock[2])
    half = clock[3]
  } else if (word !== null) {
    hour = WORD_HOURS[word[1] as string] as number
    half = word[1] === 'noon' ? 'pm' : word[3]
  } else {
    return null
  }
  if (hour > 23 || minute > 59) return null
  if (half !== undefined && hour > 12) return null
  if (half !== undefined) {
    const pm = /^p|afternoon|evening/.test(half)
    hour = (hour % 12) + (pm ? 12 : 0)
  } else if (hour >= 1 && hour <= 7) {
    hour += 12
  }
  const today = DateTime.fromJSDate(now).setZone(zone)
  let day = today
  const named = DAYS.findIndex((d) => said.includes(d))
  if (said.includes('tomorrow')) day = today.plus({ days: 1 })
  else if (named !== -1) {
    const ahead = ((named + 1 - today.weekday + 7) % 7) || 7
    day = today.plus({ days: ahead })
  }
  let at = day.set({ hour, minute, second: 0, millisecond: 0 })
  if (at <= today) at = at.plus({ days: 1 })
  return at
}
