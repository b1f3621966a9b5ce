import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chatCompletions } from './fake-models/chat-completions.js';
import { startScriptedModel } from './fake-models/server.js';
import { baseEnv, isolation, runAgent } from './run-agent.js';

/**
 * A stand-in agent (a Node script) run the way the agents are: it must reach the fake model at
 * 127.0.0.1:PORT and nothing else. In a network namespace, a connection to any other address fails at once
 * with ENETUNREACH (there is no route at all); an agent that phoned home would fail the same way.
 */
const PROBE = `
const net = require('node:net');
const [origin] = process.argv.slice(1);
const tryConnect = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port, timeout: 3000 });
  socket.on('connect', () => { socket.destroy(); resolve('connected'); });
  socket.on('timeout', () => { socket.destroy(); resolve('timeout'); });
  socket.on('error', (error) => resolve(error.code));
});
(async () => {
  const model = await fetch(origin + '/v1/models').then((r) => r.json()).then((j) => j.data[0].id, (e) => String(e));
  const outside = await tryConnect('203.0.113.7', 443);
  console.log(JSON.stringify({ model, outside }));
})();
`;

/** Whether the process has ended (gone, or a zombie waiting for its new parent to reap it). */
function isGoneOrDead(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}

describe('runAgent: the agent sees the fake model and no other machine', () => {
  it('reaches 127.0.0.1:PORT (the fake model); in a namespace, any other address is unreachable', async () => {
    const model = await startScriptedModel({ protocol: chatCompletions, script: [] });
    try {
      const result = await runAgent(
        { command: process.execPath, args: ['-e', PROBE, model.origin], cwd: process.cwd(), env: baseEnv() },
        model,
        30_000,
      );
      console.log(`isolation: ${result.isolation}; probe: ${result.stdout.trim()}`);
      expect(result.code, result.stderr).toBe(0);
      const probe = JSON.parse(result.stdout) as { model: string; outside: string };
      expect(probe.model).toBe('fake-model');
      if (isolation() === 'namespace') expect(probe.outside).toBe('ENETUNREACH');
      else expect(result.isolation).toMatch(/^no network namespace \(.+\); the agent's own switches/);
    } finally {
      await model.close();
    }
  });

  it('passes on only the environment it is given: no key of the person running the tests', async () => {
    const model = await startScriptedModel({ protocol: chatCompletions, script: [] });
    process.env.EDITGATE_AGENTS_LEAK_CHECK = 'secret';
    try {
      const result = await runAgent(
        {
          command: process.execPath,
          args: ['-e', 'console.log(JSON.stringify(Object.keys(process.env)))'],
          cwd: process.cwd(),
          env: { ...baseEnv(), ONLY_THIS: '1' },
        },
        model,
        30_000,
      );
      const keys = JSON.parse(result.stdout) as string[];
      expect(keys).toContain('ONLY_THIS');
      expect(keys).not.toContain('EDITGATE_AGENTS_LEAK_CHECK');
    } finally {
      delete process.env.EDITGATE_AGENTS_LEAK_CHECK;
      await model.close();
    }
  });

  it('kills an agent that runs past its time, with everything it started', async () => {
    const model = await startScriptedModel({ protocol: chatCompletions, script: [] });
    try {
      const result = await runAgent(
        { command: 'sh', args: ['-c', 'sleep 30 & echo $!; sleep 30'], cwd: process.cwd(), env: baseEnv() },
        model,
        // Its time covers starting the namespace and sh, which took over 500 ms on a loaded 2-core machine
        // (the stand-in was killed before it printed the pid); the sleeps run past it whatever the load.
        5_000,
      );
      expect(result.timedOut).toBe(true);
      // The background sleep (what an agent's MCP server would be) went with it.
      const background = Number(result.stdout.trim());
      expect(
        background,
        `the stand-in printed no pid within its time; stderr: ${result.stderr}`,
      ).toBeGreaterThan(0);
      // Killing takes a moment to land on a loaded machine; a process that survived stays alive for 30 s.
      const deadline = Date.now() + 5_000;
      while (!isGoneOrDead(background) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(isGoneOrDead(background)).toBe(true);
    } finally {
      await model.close();
    }
  });
});
