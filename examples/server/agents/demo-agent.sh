#!/bin/sh
# The demo agent the reference server runs by default, so a new user sees a run finish with no
# setup. It calls no model: it reads its task and event from the environment the command agent
# runner provides, reports what it got as conversation events (JSON lines) and messages (plain
# lines), and exits 0. Plain POSIX sh, so it runs in the process runtime and in any container
# image with a shell. Replace it with a real agent through AGENT_PLATFORM_AGENT_COMMAND.
set -eu

echo "{\"type\":\"status\",\"status\":\"started\",\"conversation_id\":\"${AGENT_PLATFORM_CONVERSATION_ID:-}\"}"
echo "Task: ${AGENT_PLATFORM_INSTRUCTIONS:-(none)}"

if [ -n "${AGENT_PLATFORM_EVENT_FILE:-}" ] && [ -r "$AGENT_PLATFORM_EVENT_FILE" ]; then
  bytes=$(wc -c < "$AGENT_PLATFORM_EVENT_FILE" | tr -d ' ')
  echo "{\"type\":\"observation\",\"source\":\"event\",\"payload_bytes\":$bytes}"
  echo "Looked at the triggering event ($bytes bytes of JSON)."
else
  echo "No triggering event: started by hand."
fi

if [ -n "${LLM_API_KEY:-}" ]; then key=provided; else key='not provided'; fi
echo "Model: ${LLM_MODEL:-not configured}; API key $key."
echo '{"type":"status","status":"finished"}'
