# The HTML report in a real browser: headless Chromium (installed from Debian
# when missing) renders it from disk; see tests/browser/browser_test.py.
.PHONY: test-browser

test-browser: $(BIN)
	python3 tests/browser/browser_test.py $(BIN)
