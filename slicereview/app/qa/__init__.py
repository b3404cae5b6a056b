"""The QA workflow's rules: batches per phase, gold, onboarding and qualification
(:mod:`.workflow`), the low-agreement threshold, repeats for intra-rater agreement, living
guidelines, and work packages for annotators on other machines."""
