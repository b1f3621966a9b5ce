/**
 * The OpenCode plugin `editgate hooks install opencode` writes (OpenCode loads every `*.js` in
 * `~/.config/opencode/plugins/` and `<project>/.opencode/plugins/`). It is the whole of editgate inside
 * OpenCode, and it decides nothing: for each call of a gated tool it runs `editgate hook opencode` (the
 * command line installed, started without a shell) with the call as JSON on standard input, and does what
 * the answer says. The tool's input only ever travels as that JSON, never into a command line.
 *
 *   tool.execute.before  deny: throw the reason (OpenCode fails the call and the model reads it); allow with
 *                        `args`: the tool's input replaced in place (OpenCode runs the tool with that very
 *                        object); pass: nothing.
 *   tool.execute.after   editgate's message (bytes on disk not the approved ones, or the person's change)
 *                        added to the result the model reads. OpenCode fires it only when the tool succeeded.
 *
 * Fails closed: when editgate cannot be started, does not answer within the time-out, or answers something
 * that is not its JSON, the call is refused with why (unless the command line has --fail-open).
 */

/** The first line of the file: how `editgate hooks` knows the plugin is its own. */
export const PLUGIN_MARKER = '// editgate hook plugin for OpenCode';

export interface PluginOptions {
  /** The command the plugin runs, one argument per word (`editgate hook opencode --approve web`...). */
  argv: string[];
  /** Milliseconds the plugin waits for editgate before refusing the call. */
  timeoutMs: number;
  /** OpenCode's tools the plugin asks editgate about. */
  tools: readonly string[];
}

/** The plugin's source. Every value is embedded as a JSON literal, so no text can escape into the code. */
export function pluginSource({ argv, timeoutMs, tools }: PluginOptions): string {
  return `${PLUGIN_MARKER} (written by \`editgate hooks install opencode\`; \`editgate hooks uninstall opencode\` removes it).
// It asks editgate before OpenCode's own edit tools write, and tells the model when the bytes written are not
// the ones approved. Changing this file by hand is undone by the next install.
import { spawn } from "node:child_process";

const COMMAND = ${JSON.stringify(argv)};
const TIMEOUT_MS = ${JSON.stringify(timeoutMs)};
const GATED = new Set(${JSON.stringify(tools)});
const FAIL_OPEN = COMMAND.includes("--fail-open");
/** What editgate asked to tell the model after the tool ran (the person changed the text), by call. */
const told = new Map();

function askEditgate(event) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ["pipe", "pipe", "pipe"], cwd: event.cwd });
    } catch (error) {
      reject(error);
      return;
    }
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("editgate did not answer within " + Math.round(TIMEOUT_MS / 1000) + " s"));
    }, TIMEOUT_MS);
    child.stdout.on("data", (data) => { out += data; });
    child.stderr.on("data", (data) => { err += data; });
    child.on("error", (error) => { clearTimeout(timer); reject(error); });
    child.on("close", (code) => {
      clearTimeout(timer);
      let reply;
      try { reply = JSON.parse(out); } catch { reply = undefined; }
      if (reply && typeof reply === "object" && typeof reply.decision === "string") resolve(reply);
      else reject(new Error(err.trim() || "editgate exited with code " + code + " and no answer"));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

export const EditgateHooks = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (!GATED.has(input.tool)) return;
    let reply;
    try {
      reply = await askEditgate({
        hook_event_name: "tool.execute.before",
        session_id: input.sessionID,
        call_id: input.callID,
        tool: input.tool,
        args: output.args,
        cwd: directory,
      });
    } catch (error) {
      if (FAIL_OPEN) return;
      throw new Error("editgate refused this call: its hook failed (" + (error && error.message) + "). Nothing was written.");
    }
    if (reply.decision === "deny") throw new Error(String(reply.reason));
    if (reply.decision === "allow" && reply.args && typeof reply.args === "object") {
      for (const key of Object.keys(output.args)) delete output.args[key];
      Object.assign(output.args, reply.args);
    }
    if (typeof reply.context === "string" && reply.context) told.set(input.callID, reply.context);
  },
  "tool.execute.after": async (input, output) => {
    if (!GATED.has(input.tool)) return;
    const notes = [];
    if (told.has(input.callID)) {
      notes.push(told.get(input.callID));
      told.delete(input.callID);
    }
    try {
      const reply = await askEditgate({
        hook_event_name: "tool.execute.after",
        session_id: input.sessionID,
        call_id: input.callID,
        tool: input.tool,
        args: input.args,
        cwd: directory,
      });
      if (typeof reply.message === "string" && reply.message) notes.push(reply.message);
    } catch (error) {
      notes.push("editgate could not check what was written: " + (error && error.message));
    }
    if (notes.length > 0) output.output = String(output.output ?? "") + "\\n\\n" + notes.join("\\n\\n");
  },
});
`;
}
