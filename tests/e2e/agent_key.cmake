# --agentKeyIndex against a real ssh-agent and dserver (agent_key.sh).
dtail_e2e(agent_key agent_key agent TIMEOUT 90)
