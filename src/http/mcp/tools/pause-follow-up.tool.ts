/** `pause_follow_up` (write): stop a lead's follow-up cadence until resume_follow_up. */
import { followUpPauseTool } from '../follow-up-pause.ts'

export const tool = followUpPauseTool({
  name: 'pause_follow_up',
  title: 'Pause follow-up',
  summary: "Pause a lead's follow-up calls and texts",
  description:
    "Pauses the follow-up cadence of one lead of this account: no follow-up call or text step goes out to them, including one already scheduled, until resume_follow_up. The pending step stays recorded (next_follow_up_at); a call that goes unanswered meanwhile still records the next step, which waits too. Speed to lead, place_call and send_sms are not affected, and schedule_callback is refused while paused (follow_up_paused). Pausing a paused lead changes nothing (changed: false). get_lead shows whether a lead is paused. Name the lead by phone (any formatting) or lead_id.",
  command: () => ({ type: 'PauseFollowUp' }),
  said: { changed: 'paused', unchanged: 'already paused' },
})
