# Controller.engine_state left the production class (issue 50, item 4): a test reads the state the
# controller holds, controller.state.engine_state. Rewrites the receivers the tests name a Controller
# (table, referee, again, compact, full, controller, service.controller); idempotent. GNU sed:
#   sed -i -f scripts/moves/engine_state.sed $(git grep -l engine_state -- 'tests/*.py')
s/\b\(table\|referee\|again\|compact\|full\|controller\)\.engine_state\b/\1.state.engine_state/g
