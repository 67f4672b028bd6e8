/** `resume_follow_up` (write): restart a paused lead's follow-up cadence at the next allowed moment. */
import { followUpPauseTool } from '../follow-up-pause.ts'

export const tool = followUpPauseTool({
  name: 'resume_follow_up',
  title: 'Resume follow-up',
  summary: "Restart a paused lead's follow-up",
  description:
    "Resumes the follow-up cadence of one lead of this account after pause_follow_up. A pending step that fell due while paused goes out at the next moment the contact policy allows (now, if it allows now: inside calling hours, the lead's own hours, the daily limit and the calling rules of the lead's state); one due later keeps its time. next_follow_up_at says when; null when no step is pending (the cadence had ended, or the lead answered). Resuming a lead that is not paused changes nothing (changed: false). Name the lead by phone (any formatting) or lead_id.",
  command: (settings) => ({ type: 'ResumeFollowUp', settings }),
  said: { changed: 'resumed', unchanged: 'not paused' },
})
