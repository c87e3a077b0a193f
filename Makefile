# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
# the demo day has a file of its own: a first real event (paisai's default database,
# data/paisai.duckdb) starts clean, with no invented players in its history
DB ?= data/demo.duckdb
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run hall test install install-dev browser-deps demo bench lint clean guide

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check uv

# byte-code compiled at install (uv does not by default): every command starts without
# compiling polars, click and pandera from source (PYTHONDONTWRITEBYTECODE would make that
# happen on every start)
$(VENV)/.installed: $(VENV)/bin/activate pyproject.toml
	$(UV) pip install -q --compile-bytecode --python $(PY) -e .
	$(PY) -m compileall -q pipeline schemas dashboard >/dev/null
	touch $@

$(VENV)/.installed-dev: $(VENV)/bin/activate pyproject.toml
	$(UV) pip install -q --compile-bytecode --python $(PY) -e '.[dev]'
	$(PY) -m compileall -q pipeline schemas dashboard >/dev/null
	touch $(VENV)/.installed $@

# and again on every make: a pull or checkout since the install gives the changed modules new
# times, and their stale byte-code would be compiled again at every start (up to 0.07 s CPU)
install: $(VENV)/.installed
	@$(PY) -m compileall -q pipeline schemas dashboard >/dev/null
install-dev: $(VENV)/.installed-dev
	@$(PY) -m compileall -q pipeline schemas dashboard >/dev/null

# Debian's Chromium and a CJK font for the browser tests (Playwright cannot download browsers here).
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi 'CJK'; then \
	  echo "installing chromium and fonts-noto-cjk"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk fontconfig >/dev/null; \
	fi

demo: install
	$(VENV)/bin/paisai demo --db $(DB)

# The demo's console password is `demo` unless PAISAI_ADMIN_PASSWORD is set: set your own
# before showing the dashboard beyond this machine (HOST=0.0.0.0).
run: install demo
	@echo "控制台 console: http://$(HOST):$(PORT)/admin · 密码 password: $${PAISAI_ADMIN_PASSWORD:-demo}"
	@echo "演示数据 demo data: $(DB) · 正式比赛的数据库 real events: data/paisai.duckdb (paisai dashboard)"
	PAISAI_ADMIN_PASSWORD="$${PAISAI_ADMIN_PASSWORD:-demo}" $(VENV)/bin/paisai dashboard --db $(DB) --host $(HOST) --port $(PORT)

# The hall: the dashboard on every interface, for the phones of the room (paisai refuses it
# without a console password of your own): PAISAI_ADMIN_PASSWORD=… make hall
hall: install demo
	$(VENV)/bin/paisai dashboard --hall --db $(DB) --port $(PORT)

# two workers, a test file each at a time: the suite in about half the time on two cores
test: install-dev browser-deps
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n 2 --dist loadfile --durations=25

# The organizer's guide's pictures and templates, taken anew by the tests that make them.
guide: install-dev browser-deps
	PAISAI_GUIDE_SHOTS=1 $(PY) -m pytest -q tests/ui/test_demo_day_browser.py \
	  tests/ui/test_console_browser.py tests/ui/test_console_round_browser.py \
	  tests/test_certificates.py tests/test_guide.py

bench: install-dev browser-deps
	$(PY) -m bench

lint: install-dev
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) tests/artifacts .pytest_cache
