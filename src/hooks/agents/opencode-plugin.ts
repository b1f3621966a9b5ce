/**
 * The OpenCode plugin `editgate hooks install opencode` writes (OpenCode loads every `*.js` in
 * `~/.config/opencode/plugins/` and `<project>/.opencode/plugins/`). It is the whole of editgate inside
 * OpenCode, and it decides nothing: for each call of a gated tool it asks editgate with the call as JSON, and
 * does what the answer says. The tool's input only ever travels as that JSON, never into a command line.
 * It asks the running hook server first, over its Unix socket (src/cli/hook-server.ts, the wire in
 * hooks/hook-wire.ts, the socket's place computed as hook-entry.sh computes it: STATE/run/hook-ID.sock, ID
 * read at each call from the build's hook-identity file, so an upgraded editgate is found); when none
 * answers, it runs `editgate hook opencode` (the Node command installed, started without a shell), which
 * starts the server for the next call. A socket is used only in a folder and as a file of this user's that
 * no one else can write.
 *
 *   tool.execute.before  deny: throw the reason (OpenCode fails the call and the model reads it); allow with
 *                        `args`: the tool's input replaced in place (OpenCode runs the tool with that very
 *                        object); pass: nothing.
 *   tool.execute.after   editgate's message (bytes on disk not the approved ones, or the person's change)
 *                        added to the result the model reads. OpenCode fires it only when the tool succeeded.
 *   chat.message         a session review's reasons (hooks/session-note.ts) added to the text of the
 *                        person's message, which the model reads with it (OpenCode 1.18.33's
 *                        experimental.chat.system.transform gets no session id, so it cannot say whose).
 *                        A failure here lets the message go on without them.
 *
 * Fails closed: when editgate cannot be started, the server fails mid-call, no answer comes within the
 * time-out, or the answer is not editgate's JSON, the call is refused with why (unless the command line has
 * --fail-open).
 */

/** The first line of the file: how `editgate hooks` knows the plugin is its own. */
export const PLUGIN_MARKER = '// editgate hook plugin for OpenCode';

export interface PluginOptions {
  /** The Node hook the plugin runs when no server answers, one argument per word (`NODE MAIN hook opencode --approve web`...). */
  argv: string[];
  /** The build's identity file (dist/cli/hook-identity), read at each call; absent: never the server. */
  identityFile?: string;
  /** Milliseconds the plugin waits for editgate before refusing the call. */
  timeoutMs: number;
  /** OpenCode's tools the plugin asks editgate about. */
  tools: readonly string[];
}

/** The plugin's source. Every value is embedded as a JSON literal, so no text can escape into the code. */
export function pluginSource({ argv, timeoutMs, tools, identityFile }: PluginOptions): string {
  return `${PLUGIN_MARKER} (written by \`editgate hooks install opencode\`; \`editgate hooks uninstall opencode\` removes it).
// It asks editgate before OpenCode's own edit tools write, and tells the model when the bytes written are not
// the ones approved. Changing this file by hand is undone by the next install.
import { spawn } from "node:child_process";
import { lstatSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";

const COMMAND = ${JSON.stringify(argv)};
const IDENTITY_FILE = ${JSON.stringify(identityFile ?? null)};
const TIMEOUT_MS = ${JSON.stringify(timeoutMs)};
const GATED = new Set(${JSON.stringify(tools)});
const FAIL_OPEN = COMMAND.includes("--fail-open");
/** What editgate asked to tell the model after the tool ran (the person changed the text), by call. */
const told = new Map();

/** Where the hook server listens, and its build: undefined when there is no server to look for. */
function hookServer() {
  if (!IDENTITY_FILE || process.platform === "win32") return undefined;
  let identity;
  try { identity = readFileSync(IDENTITY_FILE, "utf8").trim(); } catch { return undefined; }
  if (!/^[0-9a-f]{8,64}$/.test(identity)) return undefined;
  const state = process.env.EDITGATE_STATE_DIR || (process.env.HOME ? join(process.env.HOME, ".local", "state", "editgate") : "");
  if (!state) return undefined;
  const socketPath = join(state, "run", "hook-" + identity + ".sock");
  if (socketPath.length > 100) return undefined;
  return { identity, socketPath, folder: join(state, "run") };
}

/** This user's, and no one else may write it (a socket or folder someone else planted is never used). */
function isMine(path) {
  try {
    const info = lstatSync(path);
    return info.uid === process.getuid() && (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function hookCall(server, event) {
  const args = COMMAND.slice(COMMAND.indexOf("hook"));
  for (const field of [event.cwd, ...args]) if (String(field).includes("\\n")) return undefined;
  const head = ["editgate-hook-request 1", server.identity, event.cwd, String(args.length), ...args].join("\\n");
  return head + "\\n&" + JSON.stringify(event);
}

/** The server's answer; "absent" when no server listens there (the Node hook is asked instead). */
function askServer(server, body) {
  return new Promise((resolve, reject) => {
    let answered = false;
    const asked = request(
      { socketPath: server.socketPath, method: "POST", path: "/hook", headers: { "Content-Type": "application/octet-stream" } },
      (response) => {
        answered = true;
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString("utf8");
          if (text === "editgate-hook-reply 1 other\\n") return resolve("absent");
          // The exit code, standard error on one line (escaped for printf's %b), standard output, ".".
          const head = /^editgate-hook-reply 1 (\\d{1,3})\\n/.exec(text);
          const rest = head ? text.slice(head[0].length) : "";
          const split = rest.indexOf("\\n");
          if (response.statusCode !== 200 || !head || split < 0 || !rest.endsWith("."))
            return reject(new Error("the hook server's answer is not editgate's (HTTP " + response.statusCode + ")"));
          const stderr = rest.slice(0, split).replace(/\\\\(\\\\|n)/g, (_, what) => (what === "n" ? "\\n" : "\\\\"));
          resolve({ stdout: rest.slice(split + 1, -1), stderr, code: Number(head[1]) });
        });
      },
    );
    const timer = setTimeout(() => {
      asked.destroy(new Error("the hook server did not answer within " + Math.round(TIMEOUT_MS / 1000) + " s"));
    }, TIMEOUT_MS);
    asked.on("error", (error) => {
      clearTimeout(timer);
      // Nothing listens (no server yet, or a socket file left behind): not a failure, the Node hook answers.
      if (!answered && (error.code === "ENOENT" || error.code === "ECONNREFUSED")) resolve("absent");
      else reject(error);
    });
    asked.end(body);
  });
}

function runNodeHook(event, startServer) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      const env = startServer ? { ...process.env, EDITGATE_HOOK_SERVER: "start" } : process.env;
      child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ["pipe", "pipe", "pipe"], cwd: event.cwd, env });
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
      resolve({ stdout: out, stderr: err, code });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

async function askEditgate(event) {
  const server = hookServer();
  let result = "absent";
  const body = server && isMine(server.folder) ? hookCall(server, event) : undefined;
  if (server && body !== undefined && isMine(server.socketPath)) result = await askServer(server, body);
  if (result === "absent") result = await runNodeHook(event, server !== undefined);
  let reply;
  try { reply = JSON.parse(result.stdout); } catch { reply = undefined; }
  if (reply && typeof reply === "object" && typeof reply.decision === "string") return reply;
  throw new Error(result.stderr.trim() || "editgate exited with code " + result.code + " and no answer");
}

export const EditgateHooks = async ({ directory }) => ({
  // A person's message: what a session review (editgate review --session) left for the model is added to
  // its text, so the model reads it with the message (and the person sees it there). Never blocks a message.
  "chat.message": async (input, output) => {
    let part;
    for (const each of output.parts ?? []) {
      if (each && each.type === "text" && !each.synthetic && typeof each.text === "string") part = each;
    }
    if (!part) return;
    let reply;
    try {
      reply = await askEditgate({ hook_event_name: "chat.message", session_id: input.sessionID, cwd: directory });
    } catch {
      return;
    }
    if (typeof reply.context === "string" && reply.context) part.text = part.text + "\\n\\n" + reply.context;
  },
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
