// Package browsertest renders the lab's HTML reports in headless Chromium
// for tests: it finds the browser, injects a probe script that writes what
// it measured as JSON on <body data-probe>, and reads that back from the
// page's DOM. Only tests import it.
package browsertest
