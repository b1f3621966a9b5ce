#!/bin/sh
# editgate's hook entry: what `editgate hooks install` has an agent run before and after its own edit tools
# (src/hooks/README.md). Usage: hook-entry.sh NODE MAIN hook AGENT [options]
#
# It hands the event (standard input) to the running editgate hook server over its Unix socket with curl
# and prints the server's answer, so no Node process starts per call (src/cli/hook-server.ts; the wire and
# the socket's place: src/hooks/hook-wire.ts). When no server answers (none started yet, none left, a
# socket file left behind) or there is no curl, it runs the Node hook, NODE MAIN hook AGENT..., with the
# same event; that one starts the server for the next call. Any other failure (the server gone mid-call, an
# answer cut short or not editgate's, no answer in time) refuses the call: exit code 2 with the reason on
# standard error, which Claude Code, Codex, Gemini CLI and Qwen Code all read as "blocked". Unless the
# command line has --fail-open. The build copies this file into dist/cli/ beside hook-identity.
LC_ALL=C
if [ $# -lt 3 ]; then
  echo 'editgate hook entry: usage: hook-entry.sh NODE MAIN hook AGENT [options]. Nothing was allowed.' >&2
  exit 2
fi
node=$1
main=$2
shift 2
NL='
'
RS=$(printf '\036')
# The agents' hook time-out as editgate installs it is 600 s (each adapter's timeoutSeconds); the server
# answers within 597 s, and curl gives up before the agent would (a test holds these together).
MAX_SECONDS=598

fail_open=
for arg do
  if [ "$arg" = --fail-open ]; then fail_open=1; fi
done

refuse() {
  if [ -n "$fail_open" ]; then
    printf 'editgate: %s; the call goes ahead unchecked (the hook fails open).\n' "$1" >&2
    exit 0
  fi
  printf 'editgate refused this call: %s. Nothing was written.\n' "$1" >&2
  exit 2
}

# The event still on standard input: the Node hook reads it. EDITGATE_HOOK_SERVER=start: it starts the
# server after answering.
node_hook() {
  EDITGATE_HOOK_SERVER=start exec "$node" "$main" "$@"
}

# The event already read (into $event): handed to the Node hook.
node_hook_with_event() {
  printf '%s' "$event" | EDITGATE_HOOK_SERVER=start "$node" "$main" "$@"
  exit $?
}

if ! command -v curl >/dev/null 2>&1; then exec "$node" "$main" "$@"; fi
state=${EDITGATE_STATE_DIR:-}
if [ -z "$state" ] && [ -n "${HOME:-}" ]; then state=$HOME/.local/state/editgate; fi
id=
if [ -n "$state" ] && [ -r "${0%/*}/hook-identity" ]; then read -r id <"${0%/*}/hook-identity"; fi
case $id in '' | *[!0-9a-f]*) exec "$node" "$main" "$@" ;; esac
sock=$state/run/hook-$id.sock
if [ ${#sock} -gt 100 ]; then exec "$node" "$main" "$@"; fi
# No server yet (the Node hook starts one), or a socket in a folder that is not this user's (the Node hook
# refuses to use that folder and says so).
if [ ! -S "$sock" ] || [ ! -O "$state/run" ] || [ ! -O "$sock" ]; then node_hook "$@"; fi

event=$(cat) || refuse 'the hook event could not be read'
case $PWD in *"$NL"*) node_hook_with_event "$@" ;; esac
head="editgate-hook-request 1$NL$id$NL$PWD$NL$#$NL"
for arg do
  case $arg in *"$NL"*) node_hook_with_event "$@" ;; esac
  head=$head$arg$NL
done
# -q: no ~/.curlrc; no proxy; no "Expect: 100-continue" wait.
reply=$(printf '%s%s' "$head" "$event" | curl -q -s --unix-socket "$sock" --noproxy '*' --max-time "$MAX_SECONDS" \
  -H 'Content-Type: application/octet-stream' -H 'Expect:' --data-binary @- http://editgate/hook)
status=$?
case $status in
  0) ;;
  # Nothing listens on the socket (a file left by a server that was killed): the Node hook starts anew.
  7) node_hook_with_event "$@" ;;
  28) refuse "the hook server gave no answer within $MAX_SECONDS s" ;;
  *) refuse "the hook server failed (curl exit code $status)" ;;
esac
magic='editgate-hook-reply 1 '
case $reply in
  # A server of another build of editgate (command substitution took the reply's last line break).
  "${magic}other") node_hook_with_event "$@" ;;
  "$magic"[0-9]"$NL"*) ;;
  *) refuse "the hook server's answer is not editgate's" ;;
esac
case $reply in *"$RS") ;; *) refuse "the hook server's answer was cut short" ;; esac
code=${reply#"$magic"}
code=${code%%"$NL"*}
rest=${reply#*"$NL"}
err=${rest%%"$RS"*}
out=${rest#*"$RS"}
out=${out%"$RS"}
if [ -n "$err" ]; then printf '%s' "$err" >&2; fi
if [ -n "$out" ]; then printf '%s' "$out"; fi
exit "$code"
