import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';

/**
 * The shell examples of the documentation, run as a reader pastes them. A section's ```sh blocks are
 * read in order; each command may be followed by the answer it gets, written as a comment:
 *
 *   curl -s "$API/projects?company_slug=acme-corp" "${auth[@]}"
 *   # → 200 {"data":[{"slug":"website-redesign"…
 *
 * `→` then the status, then pieces of the body separated by `…`, each of which must appear in the
 * answer in that order; a `…` stands for everything left out, so an answer shown without one at its
 * start or end starts or ends as shown. Every curl prints its status as the reader sees it, on a
 * last line `→ <status>` (`-w '\n→ %{http_code}\n'`). `# prints: A … B` after a command that runs
 * until stopped (one the reader starts in a second terminal) means its output shows A then B by the
 * end of the walk; `# later prints: C` further down says what it shows after that (C after B). An
 * answer of several lines goes on in `#   ` lines (three spaces) right under its `# →`. A command
 * with no `# →` must exit 0; every `curl` must say what it answers.
 */
export interface Step {
  /** The command as a reader pastes it (continuation lines joined). */
  command: string;
  /** The status a curl answers, or the exit code of anything else (0 when not said). */
  expect: number;
  /** Pieces of the answer's body (curl) or of the output (`prints`), in order. */
  pieces: string[];
  /** The answer is shown from its start, or to its end (no `…` there): its first or last piece is its start or end. */
  whole?: { start: boolean; end: boolean };
  /** A command that keeps running (the reader starts it in a second terminal). */
  background: boolean;
  /** Where it is written, for messages: `README.md:63`. */
  at: string;
}

/** The ```sh blocks of the section under `heading` (up to the next heading of the same or a higher level). */
export function sectionSteps(file: string, heading: string, page = readFileSync(join(repoRoot, file), 'utf8')): Step[] {
  const lines = page.split('\n');
  const start = lines.findIndex((l) => l.replace(/^#+\s*/, '') === heading && l.startsWith('#'));
  if (start === -1) throw new Error(`${file} has no heading "${heading}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const steps: Step[] = [];
  let inBlock = false;
  let pending: { text: string; line: number } | undefined;
  // The answer being read: `#   more` lines right under `# → ...` go on with it (an answer of several lines).
  let answer: { step: Step; shown: string } | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!inBlock && /^#+\s/.test(line) && /^#+/.exec(line)![0].length <= level) break;
    if (line.startsWith('```')) {
      inBlock = !inBlock && line.trim() === '```sh';
      continue;
    }
    if (!inBlock) continue;
    const trimmed = line.trim();
    if (pending) {
      pending.text += `\n${line}`;
      if (!trimmed.endsWith('\\')) {
        steps.push(commandStep(pending.text, `${file}:${pending.line}`));
        pending = undefined;
      }
      continue;
    }
    const more = /^# {3}(.*)$/.exec(trimmed);
    if (answer && more) {
      answer.shown += `\n${more[1]!}`;
      showAnswer(answer.step, answer.shown);
      continue;
    }
    answer = undefined;
    const later = /^# later prints:\s*(.*)$/.exec(trimmed);
    if (later) {
      const follower = steps.findLast((s) => s.background);
      if (!follower) throw new Error(`${file}:${i + 1}: "# later prints:" with no command running in the background before it`);
      follower.pieces.push(...pieces(later[1]!));
      continue;
    }
    const expectation = /^# (→|prints:)\s*(.*)$/.exec(trimmed);
    if (expectation) {
      const last = steps.at(-1);
      if (!last) throw new Error(`${file}:${i + 1}: an answer with no command before it`);
      if (expectation[1] === 'prints:') {
        last.background = true;
        last.pieces = pieces(expectation[2]!);
      } else {
        const m = /^(exit )?(\d{1,3})\b\s*(.*)$/.exec(expectation[2]!);
        if (!m) throw new Error(`${file}:${i + 1}: "# →" is followed by a status (or "exit n")`);
        last.expect = Number(m[2]);
        answer = { step: last, shown: m[3]!.trim() };
        showAnswer(last, answer.shown);
        (last as Step & { stated?: boolean }).stated = true;
      }
      continue;
    }
    if (!trimmed || trimmed.startsWith('#')) continue;
    if (trimmed.endsWith('\\')) pending = { text: line, line: i + 1 };
    else steps.push(commandStep(line, `${file}:${i + 1}`));
  }
  for (const s of steps) {
    if (!/^curl\b/.test(s.command.trim())) continue;
    if (!(s as Step & { stated?: boolean }).stated)
      throw new Error(`${s.at}: a curl example says what it answers on the line after it (# → <status> …)`);
    if (!s.command.includes(STATUS_LINE))
      throw new Error(`${s.at}: a curl example shows the reader its status: curl -s ${STATUS_LINE} ...`);
  }
  return steps;
}

/** What every curl of the documentation adds, so that its reader sees the status: a last line `→ 200`. */
const STATUS_LINE = "-w '\\n→ %{http_code}\\n'";

/** The pieces of an answer as shown, and whether it is shown from its start and to its end (no `…` there). */
function showAnswer(step: Step, shown: string): void {
  step.pieces = pieces(shown);
  step.whole = { start: shown !== '' && !shown.startsWith('…'), end: shown !== '' && !shown.endsWith('…') };
}

function commandStep(command: string, at: string): Step {
  return { command, expect: 0, pieces: [], background: false, at };
}

function pieces(text: string): string[] {
  return text
    .split('…')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** The npm scripts a command runs (`npm run x`, `npm start`, `npm test`). */
export function scriptsNamed(command: string): string[] {
  const named = [...command.matchAll(/\bnpm run (?:-\S+\s+)*([\w:][\w:-]*)/g)].map((m) => m[1]!);
  for (const m of command.matchAll(/\bnpm (start|test)\b/g)) named.push(m[1]!);
  return named;
}

export interface Ran {
  step: Step;
  /** The status (curl) or exit code. */
  got: number;
  /** The answer's body (curl), the output (anything else); for a background command, its output by the end. */
  output: string;
}

/**
 * Runs the steps in one bash, as pasted into one terminal (background steps as in a second one), with
 * `env` added (the reader's shell after npm start: DATA_DIR tells the CLIs which stack). `beforeEnd`
 * runs once every foreground step has run, before the background ones are read (e.g. waits for the
 * stream to publish).
 */
export async function runSteps(steps: Step[], env: Record<string, string>, beforeEnd: () => Promise<void>): Promise<Ran[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pls-doc-'));
  try {
    // curl as the reader runs it, errors shown (-S); the status is the one its own -w prints.
    const script = ['set -m', 'curl() { command curl -S "$@"; }'];
    steps.forEach((s, i) => {
      if (s.background) {
        script.push(`( ${s.command} ) > "${dir}/bg-${i}.out" 2>&1 &`, `echo $! > "${dir}/bg-${i}.pid"`);
        return;
      }
      script.push(`printf '\\n@@step ${i}\\n'`, s.command, `printf '\\n@@exit %s\\n' "$?"`);
    });
    writeFileSync(join(dir, 'walk.sh'), `${script.join('\n')}\n`);
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('bash', [join(dir, 'walk.sh')], {
        cwd: repoRoot,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.once('error', reject);
      child.once('exit', () => resolve(out));
    });
    await beforeEnd();
    const ran: Ran[] = [];
    const sections = output.split(/\n@@step (\d+)\n/);
    const byStep = new Map<number, string>();
    for (let k = 1; k < sections.length; k += 2) byStep.set(Number(sections[k]), sections[k + 1]!);
    for (const [i, step] of steps.entries()) {
      if (step.background) {
        ran.push({ step, got: 0, output: await backgroundOutput(dir, i, step.pieces) });
        continue;
      }
      const text = byStep.get(i) ?? '';
      const exit = Number(/@@exit (\d+)/.exec(text)?.[1] ?? -1);
      const printed = text.replace(/\n@@exit \d+\n?$/, '');
      const status = /\n?→ (\d{3})\n?$/.exec(printed);
      const body = (status ? printed.slice(0, status.index) : printed).trim();
      ran.push({ step, got: status && /^\s*curl\b/.test(step.command) ? Number(status[1]) : exit, output: body });
    }
    return ran;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A background step's output once it shows every piece (or after 20 s), then the step is stopped. */
async function backgroundOutput(dir: string, i: number, expected: string[]): Promise<string> {
  const file = join(dir, `bg-${i}.out`);
  const deadline = Date.now() + 20_000;
  let text = '';
  for (;;) {
    text = readFileSync(file, 'utf8');
    if (inOrder(text, expected) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = Number(readFileSync(join(dir, `bg-${i}.pid`), 'utf8'));
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Gone already.
  }
  return text;
}

/** Whether every piece appears in `text`, each after the one before. */
export function inOrder(text: string, expected: string[]): boolean {
  let from = 0;
  for (const piece of expected) {
    const at = text.indexOf(piece, from);
    if (at === -1) return false;
    from = at + piece.length;
  }
  return true;
}
