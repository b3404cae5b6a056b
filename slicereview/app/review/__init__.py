"""The reviewing job: the review queue (:mod:`.queue`), decisions and pins (:mod:`.decisions`)
and their undoable versions (:mod:`.commands`), what the review panel shows of one image
(:mod:`.image`)."""
