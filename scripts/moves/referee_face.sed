# The referee's face (issue 50, item 4): outside firmware_host/referee/ (and its tests), a module
# imports the referee's names from the package, firmware_host.referee, never from its eight inner
# modules that the face exports (FACE in firmware_host/referee/__init__.py). Then `ruff check --fix`
# merges the import lines. Idempotent. GNU sed, on files outside the referee:
#   sed -i -f scripts/moves/referee_face.sed $(git grep -l 'from firmware_host.referee.' -- '*.py' \
#       ':!firmware_host/referee' ':!tests')
s/^\([[:space:]]*\)from firmware_host\.referee\.\(controller\|event_words\|protocol\|snapshot\|table_defaults\|table_events\|table_setup\|transcript\) import/\1from firmware_host.referee import/
