"""Claude Code (docs/claude-code.md)."""
