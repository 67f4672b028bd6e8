/** `leadline serve`: the HTTP service, until SIGTERM/SIGINT. */
import { loadConfig } from '../../config/config.ts'
import { serve } from '../../http/server.ts'
import { parse, type Io } from '../cli-io.ts'

export async function serveCommand(args: string[], io: Io): Promise<void> {
  parse(args, {})
  // The environment alone: another server's recorded address on the same store says nothing of this one.
  await serve(loadConfig(io.env))
  // Keep running: the server's signal handlers end the process.
  await new Promise<never>(() => {})
}
