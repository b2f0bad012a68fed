"""The table: `drama play`, a scenario played live with a journal, undo, resuming and a player board."""
