/** The assistant's brief (validated, normalised, refused with the member named), the questions record_answer may name, and the scripted assistant's reading of a spoken time. */
import t from 'tap'
import { DateTime } from 'luxon'
import { validateSettingsChange } from '../../../../src/domain/account/account-settings.ts'
import { DEFAULT_BRIEF } from '../../../../src/domain/account/assistant-brief.ts'
import { briefQuestion } from '../../../../src/domain/lead/assistant/assistant.decider.ts'
import { spokenTimeAt, yesOrNo } from '../../../../src/integrations/assistant/scripted/spoken-answers.ts'

t.test('a brief is validated, normalised and filled with the defaults', async (t) => {
  const change = validateSettingsChange({ assistantBrief: { business: '  We   fix roofs. ', questions: [{ question: 'Own the home?', goodAnswer: 'yes' }], callbackWindows: 'Monday-Friday 10:00-16:00', transferNumber: '+13125550177' } })
  t.same(change.assistantBrief, { ...DEFAULT_BRIEF, business: 'We fix roofs.', questions: [{ question: 'Own the home?', goodAnswer: 'yes' }], callbackWindows: 'mon-fri 10:00-16:00', transferNumber: '+13125550177' })
  const table: Array<[Record<string, unknown>, RegExp]> = [
    [{ transferNumber: '3125550177' }, /invalid assistantBrief\.transferNumber: must be an E\.164/],
    [{ maxCallMinutes: 16 }, /maxCallMinutes: must be at most 15 minutes/],
    [{ maxCallMinutes: 0 }, /maxCallMinutes: must be at least 1 minute/],
    [{ maxConcurrentCalls: 51 }, /maxConcurrentCalls: must be at most 50/],
    [{ questions: Array.from({ length: 11 }, (_, i) => ({ question: `Q${i}?`, goodAnswer: '' })) }, /at most 10 questions/],
    [{ questions: [{ question: 'A?', goodAnswer: '' }, { question: 'a?', goodAnswer: '' }] }, /listed twice/],
    [{ business: 'Call <Say>now</Say>' }, /must be plain text/],
    [{ callbackWindows: 'mon-fri 9-5' }, /bad time "9"/],
    [{ voice: 'en US <voice>' }, /ConversationRelay voice name/],
    [{ language: 'english' }, /BCP 47/],
    [{ nickname: 'x' }, /invalid assistantBrief/],
  ]
  for (const [brief, message] of table) t.throws(() => validateSettingsChange({ assistantBrief: brief }), { code: 'invalid_setting', message }, JSON.stringify(brief))
})

t.test('record_answer names a question of the brief, by number or words', async (t) => {
  const questions = [{ question: 'Do you own the home?', goodAnswer: 'yes' }, { question: 'What is wrong?', goodAnswer: '' }]
  t.equal(briefQuestion(questions, '2').question, 'What is wrong?')
  t.equal(briefQuestion(questions, '  do YOU own the home? ').question, 'Do you own the home?')
  t.throws(() => briefQuestion(questions, '3'), { code: 'unknown_question', message: /1\. Do you own the home\? 2\. What is wrong\?/ })
  t.throws(() => briefQuestion([], 'anything'), { code: 'unknown_question', message: /no questions/ })
})

t.test('the scripted assistant reads yes, no and spoken times in the lead zone', async (t) => {
  t.equal(yesOrNo('Yeah, sure'), 'yes')
  t.equal(yesOrNo('No, not now'), 'no')
  t.equal(yesOrNo('hmm'), null)
  // Monday 30 November 2026, 10:00 in Chicago.
  const now = new Date('2026-11-30T16:00:00Z')
  const at = (text: string) => spokenTimeAt(text, 'America/Chicago', now)?.toISO({ suppressMilliseconds: true }) ?? null
  t.equal(at('tomorrow at 3'), '2026-12-01T15:00:00-06:00', 'a bare 3 is the afternoon')
  t.equal(at('Thursday 10:30 am'), '2026-12-03T10:30:00-06:00')
  t.equal(at('at four in the afternoon'), '2026-11-30T16:00:00-06:00')
  t.equal(at('9 am'), '2026-12-01T09:00:00-06:00', 'a time already past today is tomorrow')
  t.equal(at('Monday at noon'), '2026-12-07T12:00:00-06:00', 'the day named, next week when it is today')
  t.equal(at('whenever'), null)
  t.ok(DateTime.fromISO(at('tomorrow at 3') as string).isValid)
})
