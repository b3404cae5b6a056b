"""The main window: its menus (file, view, QA, owner), its tabs (the View tab, then a page per
job and the Overview, built on first need) and its dialogs (import, work package, shortcuts)."""
