"""The rating job: rating sessions (:mod:`.sessions`: creating them with their defaults and
checks, the session list, the ranking CSV, reliability) and the running rating engine of one
open session (:mod:`.run`)."""
