"""Teammates' plans between servers: the answer keys a teammate's server hands the lead's
(:mod:`.keys`) and the lead's watch of its inboxes (:mod:`.watch`). Import-free."""
