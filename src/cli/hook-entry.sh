#!/bin/sh
# editgate's hook entry: what `editgate hooks install` has an agent run before and after its own edit tools
# (src/hooks/README.md). Usage: hook-entry.sh NODE MAIN hook AGENT [options]
#
# It hands the event (standard input) to the running editgate hook server, over its loopback endpoint with
# bash's own /dev/tcp when bash runs it, else over its Unix socket with curl, and prints the server's
# answer, so no Node process starts per call (src/cli/hook-server.ts; the wire and the socket's place:
# src/hooks/hook-wire.ts). Only shell builtins and curl run: a call costs a bash, or a shell and a curl. When there is no server (none started yet, none left, a socket whose process is gone) or no curl,
# it runs the Node hook, NODE MAIN hook AGENT..., on the same standard input; that one starts the server for
# the next call. Any other failure (the server gone mid-call, an answer cut short or not editgate's, no
# answer in time) refuses the call: exit code 2 with the reason on standard error, which Claude Code, Codex,
# Gemini CLI and Qwen Code all read as "blocked", unless the command line has --fail-open. The build copies
# this file into dist/cli/ beside hook-identity.
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

# The Node hook, the event still on standard input. EDITGATE_HOOK_SERVER=start: it starts the server after
# answering.
node_hook() {
  EDITGATE_HOOK_SERVER=start exec "$node" "$main" "$@"
}

if [ -z "${BASH_VERSION:-}" ] && ! command -v curl >/dev/null 2>&1; then exec "$node" "$main" "$@"; fi
state=${EDITGATE_STATE_DIR:-}
if [ -z "$state" ] && [ -n "${HOME:-}" ]; then state=$HOME/.local/state/editgate; fi
id=
if [ -n "$state" ] && [ -r "${0%/*}/hook-identity" ]; then read -r id <"${0%/*}/hook-identity"; fi
case $id in '' | *[!0-9a-f]*) exec "$node" "$main" "$@" ;; esac
sock=$state/run/hook-$id.sock
if [ ${#sock} -gt 100 ]; then exec "$node" "$main" "$@"; fi
# A server there: its socket, in a folder, of this user's, and its process alive. Else the Node hook (it
# starts one, or says why it cannot use the folder).
pid=
if [ -S "$sock" ] && [ -O "$state/run" ] && [ -O "$sock" ] && [ -r "$state/run/hook-$id.pid" ]; then
  read -r pid <"$state/run/hook-$id.pid"
fi
case $pid in '' | *[!0-9]*) node_hook "$@" ;; esac
kill -0 "$pid" 2>/dev/null || node_hook "$@"
case $PWD in *"$NL"*) node_hook "$@" ;; esac
head="editgate-hook-request 1$NL$id$NL$PWD$NL$#$NL"
for arg do
  case $arg in *"$NL"*) node_hook "$@" ;; esac
  head=$head$arg$NL
done

# Run by bash (`hooks install` writes /bin/bash where there is one): bash's own /dev/tcp to the server's
# loopback endpoint (src/cli/hook-endpoint.ts: STATE/run/hook-http holds its port and token, this user's
# alone), so not even curl starts. Only while the server says it holds that port (hook-ID.http, written by
# it): a port no editgate server holds may be any program's, which must never get the token or answer. The
# connection is made before the event is read: when nothing listens there, standard input is still whole
# for curl below.
reply=
via=
if [ -n "${BASH_VERSION:-}" ] && [ -O "$state/run/hook-http" ] && [ -r "$state/run/hook-http" ] &&
  [ -O "$state/run/hook-$id.http" ] && [ -r "$state/run/hook-$id.http" ]; then
  port=
  token=
  held=
  read -r port token <"$state/run/hook-http"
  read -r held <"$state/run/hook-$id.http"
  case $port in '' | *[!0-9]*) port= ;; esac
  case $token in '' | *[!0-9a-f]*) port= ;; esac
  if [ "$held" != "$port" ]; then port=; fi
  if [ -n "$port" ] && { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
    via=tcp
    # $(<file) is bash's read of a whole file without a process (read's own byte-at-a-time reading costs
    # a system call a byte); standard input that cannot be opened again by name (a socket, as Node gives
    # its children) is read by cat. The event's last line breaks go, as JSON allows.
    if ! { event=$(</dev/stdin); } 2>/dev/null; then event=$(/bin/cat); fi
    body=$head'&'$event
    # A server that closes the connection early makes the write fail, not end this shell unsaid; what it
    # answered before closing (a refusal saying why) is still read below.
    trap '' PIPE
    unsent=
    printf 'POST /wire HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\nContent-Type: application/octet-stream\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
      "$port" "$token" "${#body}" "$body" >&3 2>/dev/null || unsent='the hook server stopped taking the call'
    # Until the server closes the connection (Connection: close): read gives 1 at its end, more than
    # 128 when the time ran out.
    IFS= read -r -d '' -t "$MAX_SECONDS" reply <&3
    status=$?
    exec 3<&-
    if [ "$status" -gt 128 ]; then refuse "the hook server gave no answer within $MAX_SECONDS s"; fi
    case $reply in
      'HTTP/1.1 200 '*)
        if [ -n "$unsent" ]; then refuse "$unsent"; fi
        reply=${reply#*$'\r\n\r\n'}
        ;;
      '') refuse "${unsent:-the hook server closed the connection without an answer}" ;;
      *) refuse "the hook server refused the call (${reply%%$'\r'*})" ;;
    esac
  fi
fi

if [ -z "$via" ]; then
  command -v curl >/dev/null 2>&1 || node_hook "$@"
  # curl reads the event from standard input itself and sends it after "&" (the second --data-binary).
  # -q: no ~/.curlrc; no proxy; no "Expect: 100-continue" wait.
  reply=$(curl -q -s --unix-socket "$sock" --noproxy '*' --max-time "$MAX_SECONDS" \
    -H 'Content-Type: application/octet-stream' -H 'Expect:' \
    --data-binary "$head" --data-binary @- http://editgate/hook)
  status=$?
  case $status in
    0) ;;
    # Nothing listens after all (the server just ended, or its process id is another's now): the event is
    # spent, so this call is refused; the socket goes, so the next call runs the Node hook, which starts one.
    7)
      rm -f "$sock"
      refuse 'the hook server had stopped (ask again: the next call starts it)'
      ;;
    28) refuse "the hook server gave no answer within $MAX_SECONDS s" ;;
    *) refuse "the hook server failed (curl exit code $status)" ;;
  esac
fi
magic='editgate-hook-reply 1 '
case $reply in
  "$magic"[0-9]"$NL"*.) ;;
  "${magic}other") refuse 'the hook server is of another build of editgate' ;;
  *) refuse "the hook server's answer is not whole" ;;
esac
code=${reply%%"$NL"*}
code=${code#"$magic"}
rest=${reply#*"$NL"}
err=${rest%%"$NL"*}
out=${rest#*"$NL"}
out=${out%.}
if [ -n "$err" ]; then printf '%b' "$err" >&2; fi
printf '%s' "$out"
exit "$code"
