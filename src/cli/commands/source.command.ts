/** `leadline source …`: lead sources that need more than the webhook URL. Today: `facebook` (Facebook Lead Ads). */
import { UsageError, type Io } from '../cli-io.ts'

export async function sourceCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'facebook':
      return (await import('./source-facebook.command.ts')).sourceFacebookCommand(rest, io)
    default:
      throw new UsageError(`unknown command "source ${sub ?? ''}": use facebook`)
  }
}
