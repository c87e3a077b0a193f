"""Publishing: the static site for phones (publish), the templates' rendering (templating)
and the files an organizer prints or sends — pairings, score sheets, table cards,
certificates, the ranking picture, standings, templates (export).

May use the base and the stages below it (ranking, tractor, pairing's round reads); the
event day, operations, the command line and the dashboard use it."""
