"""One package per agent: what that agent's own contract needs (how it is set up, how its
events reach the server, how answers are written back, where its plan lives). Core stays
agent-neutral."""
