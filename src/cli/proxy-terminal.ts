/**
 * The person at the terminal `editgate proxy` was started from, as the proxy's TerminalChannel: diffs are
 * asked with the usual terminal prompt (src/terminal/prompt.ts), cards with a short prompt of their own.
 *
 * The proxy runs under an MCP client, which often has a screen of its own on the same terminal. So the
 * terminal is opened only while a question is on it and closed right after (an open terminal reads keys
 * that are meant for the client), and one question is on it at a time.
 */
import { closeSync, openSync } from 'node:fs';
import type { TerminalChannel } from '../proxy/approvals.js';
import type { CardDecision, CardRequest } from '../proxy/card.js';
import { cardText } from '../proxy/card.js';
import { visibleText } from '../proxy/visible-text.js';
import { createKeyReader } from '../terminal/keys.js';
import type { ThemeOption } from '../terminal/palette.js';
import { createTerminalApprover, STILL_TYPING_HINT } from '../terminal/prompt.js';
import { enterRawMode } from '../terminal/tty-modes.js';
import { settled, TypingGuard } from '../terminal/typing-guard.js';
import { findPersonAtTerminal, type PersonAtTerminal } from './person.js';

const NO_TERMINAL = 'no terminal could be opened to ask';

/** Whether there is a terminal to ask at, found without opening it for reading. */
function terminalExists(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'r+'));
    return true;
  } catch {
    return false;
  }
}

/** One card question: y this call, t this tool for the session (when offered), n (or Esc, Ctrl-C) no. */
async function askCard(person: PersonAtTerminal, request: CardRequest): Promise<CardDecision> {
  const { input, output } = person;
  const choices = request.sessionGrant
    ? `  y yes · t yes to ${visibleText(request.tool, { oneLine: true })} for the rest of the session · n no`
    : '  y yes · n no';
  const restore = enterRawMode(input);
  const keys = createKeyReader(input);
  // Keys typed before the question was on screen, and the rest of their run, do not answer it (as in the
  // diff prompt): often they were typed into the MCP client's own input on the same terminal.
  const guard = new TypingGuard();
  let hinted = false;
  try {
    await settled();
    output.write(`${cardText(request)}\nRun it?\n${choices}\n`);
    guard.shown();
    for (;;) {
      const { key, at } = await keys.nextTimed();
      const role = guard.key(at);
      if (key.name === 'escape' || key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof')
        break;
      if (key.name !== 'char') continue;
      if (role !== 'answer') {
        if (!hinted) output.write(`${STILL_TYPING_HINT}\n`);
        hinted = true;
        continue;
      }
      if (key.char === 'y') {
        output.write('✓ Yes\n');
        return 'once';
      }
      if (key.char === 't' && request.sessionGrant) {
        output.write(
          `✓ Yes, and to every ${visibleText(request.tool, { oneLine: true })} call this session\n`,
        );
        return 'tool';
      }
      if (key.char === 'n') break;
    }
    output.write('✗ No\n');
    return 'deny';
  } finally {
    keys.close();
    restore();
  }
}

/** The channel, or undefined when there is no terminal at all. */
export function proxyTerminal(display: {
  noColor: boolean;
  theme: ThemeOption;
}): TerminalChannel | undefined {
  if (!terminalExists()) return undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const withPerson = <T>(fallback: T, ask: (person: PersonAtTerminal) => Promise<T>): Promise<T> => {
    const turn = queue.then(async () => {
      const person = findPersonAtTerminal({ stdinBusy: true });
      if (!person) return fallback;
      try {
        return await ask(person);
      } finally {
        person.close();
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  };
  return {
    change: (request) =>
      withPerson({ deny: NO_TERMINAL }, (person) =>
        Promise.resolve(
          createTerminalApprover({ ...display, input: person.input, output: person.output })(request),
        ),
      ),
    card: (request) => withPerson<CardDecision>({ deny: NO_TERMINAL }, (person) => askCard(person, request)),
    notify: (message) => {
      void withPerson(undefined, async (person) => {
        person.output.write(`editgate proxy: ${visibleText(message)}\n`);
      });
    },
  };
}
