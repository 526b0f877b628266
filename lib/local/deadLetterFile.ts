import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A dead letter in a local dead-letter file (the stand-in for an SQS dead-letter queue): one JSON line
 * with its reason, when, and the message body, the folder made if need be. Resolves once the line is written.
 */
export async function writeDeadLetter(file: string, body: string, reason: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify({ reason, at: new Date().toISOString(), body })}\n`);
}
