"""The task owner's dialogs (Owner menu): batches per phase, gold and onboarding, guidelines,
and the acting owner."""
