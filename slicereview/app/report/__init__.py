"""The owner's report (:mod:`.owner_report`: one stand-alone HTML file; the Overview tab shows
the same data) and its parts: inter- and intra-rater agreement, classification questions,
acceptance and time, where two annotators disagree, number formats and plots."""
