# The venue's two programs in their rooms (issue 50, item 4): venue/table/ (the table's own page and
# MQTT feed) and venue/hub/ (the venue's hub); venue/ keeps what both share (guard, sse, settings,
# static/). Rewrites old module names (venue.page) and paths (venue/page.py) to the new ones;
# idempotent (a second pass changes nothing). GNU sed:
#   sed -i -f scripts/moves/venue_rooms.sed $(git grep -l -E 'venue[./]' -- '*.py' '*.md')
# Only the dotted and the path forms: a `from venue import page` (none at the move) is left alone.
#
# old                       -> new
# venue.page                -> venue.table.page
# venue.page_history        -> venue.table.page_history
# venue.public              -> venue.table.public
# venue.record              -> venue.table.record
# venue.reviews             -> venue.table.reviews
# venue.hand_view           -> venue.table.hand_view
# venue.words               -> venue.table.words
# venue.export              -> venue.table.export
# venue.wiring              -> venue.table.wiring
# venue.mqtt                -> venue.table.mqtt
# venue.hub                 -> venue.hub.scoreboard
# venue.hub_settings        -> venue.hub.hub_settings
# venue.ledger              -> venue.hub.ledger
# venue.pairing             -> venue.hub.pairing
# venue.room                -> venue.hub.room
# venue.trust               -> venue.hub.trust
# venue.broker              -> venue.hub.broker
# venue.evening             -> venue.hub.evening
# venue.session             -> venue.hub.session
# venue.guard, venue.sse, venue.settings, venue/static/: unchanged

# the table's room
s/\bvenue\.\(page_history\|page\|public\|record\|reviews\|hand_view\|words\|export\|wiring\|mqtt\)\b/venue.table.\1/g
s#\bvenue/\(page_history\|page\|public\|record\|reviews\|hand_view\|words\|export\|wiring\|mqtt\)\.py\b#venue/table/\1.py#g

# the hub's room: the new names begin with the old venue.hub, so they are set aside first
s/\bvenue\.hub\.\(scoreboard\|hub_settings\|ledger\|pairing\|room\|trust\|broker\|evening\|session\)\b/venue.@HUB@.\1/g
s/\bvenue\.\(hub_settings\|ledger\|pairing\|room\|trust\|broker\|evening\|session\)\b/venue.@HUB@.\1/g
s/\bvenue\.hub\b/venue.@HUB@.scoreboard/g
s/venue\.@HUB@\./venue.hub./g
s#\bvenue/\(hub_settings\|ledger\|pairing\|room\|trust\|broker\|evening\|session\)\.py\b#venue/hub/\1.py#g
s#\bvenue/hub\.py\b#venue/hub/scoreboard.py#g

# what both rooms share moved to venue/ itself (after the move): the static files' folder, the
# clock's question, the MQTT client
s/from venue\.table\.page import STATIC$/from venue.assets import STATIC/
s/from venue\.hub\.evening import clock_set$/from venue.clock import clock_set/
s/from venue\.table\.mqtt import \(QOS, make_client\|make_client\|QOS\)$/from venue.mqtt_client import \1/
