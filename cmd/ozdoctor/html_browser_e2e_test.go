//go:build e2e

package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium returns the path of Debian's chromium. Without it the browser
// tests skip, except in CI (CI=true), where .ci/run installs it and a
// missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is not on PATH, and CI=true requires the browser test to run (.ci/run installs Debian's chromium): %v", err)
		}
		t.Skip("chromium is not on PATH: install Debian's chromium (apt-get install chromium) to run the browser test")
	}
	return path
}

// runChromium runs headless chromium with a fresh profile on url, bounded
// in time, and returns its stdout and stderr.
func runChromium(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	profile, err := os.MkdirTemp("", "ozdoctor-chromium-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v (context: %v)\nstderr:\n%s", strings.Join(args, " "), err, ctx.Err(), errb.String())
	}
	return out.String(), errb.String()
}

// consoleLines returns what the page wrote to the console, uncaught errors
// included; the report's script writes nothing.
func consoleLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			out = append(out, l)
		}
	}
	return out
}

// TestHTMLReportInBrowser opens the sample bundle's HTML report in headless
// chromium: the script runs without errors, the zoom and copy controls
// appear and work, every finding and lane is in the DOM, and a screenshot
// shows a picture rather than a blank page.
func TestHTMLReportInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "analyze", "--format", "html", "--output", report, sample); code != exitFindings {
		t.Fatalf("analyze: exit %d, stderr %s", code, stderr)
	}
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("HTML report of the sample bundle: %d bytes", len(page))

	// The DOM after the script ran. A copy of the page records errors the
	// console might not show, and drives the zoom by click and by key.
	probe := strings.Replace(string(page), "<head>", `<head><script>window.addEventListener("error", function (e) { document.documentElement.setAttribute("data-js-error", String(e.message)); });</script>`, 1)
	probe = strings.Replace(probe, "</body>", `<script>(function () {
  var fig = document.getElementById("tl-overview");
  fig.querySelector("button[data-zoom=in]").click();
  var first = fig.querySelector(".zoom-state").textContent;
  fig.querySelector(".svgwrap").dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
  var second = fig.querySelector(".zoom-state").textContent;
  document.documentElement.setAttribute("data-zoom-test", first + " | " + second);
})();</script></body>`, 1)
	probePath := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probePath, []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, stderr := runChromium(t, bin, "--dump-dom", "file://"+probePath)
	if lines := consoleLines(stderr); len(lines) > 0 {
		t.Errorf("console output while loading the report:\n%s", strings.Join(lines, "\n"))
	}
	if m := regexp.MustCompile(`data-js-error="([^"]*)"`).FindStringSubmatch(dom); m != nil {
		t.Errorf("script error: %s", m[1])
	}
	if !strings.Contains(dom, `data-script="ready"`) {
		t.Errorf("the report's script did not finish")
	}
	zoom := regexp.MustCompile(`data-zoom-test="showing (\d\d:\d\d:\d\d) to (\d\d:\d\d:\d\d) UTC \| showing (\d\d:\d\d:\d\d) to (\d\d:\d\d:\d\d) UTC"`).FindStringSubmatch(dom)
	if zoom == nil || zoom[1] >= zoom[3] {
		t.Errorf("zooming in and then moving right did not change the overview: %v", zoom)
	}
	if n := strings.Count(dom, `<section class="finding`); n != 8 {
		t.Errorf("%d finding sections, want 8", n)
	}
	for _, d := range []string{"HDDS-17519", "HDDS-17425", "HDDS-16809", "HDDS-17674", "HDDS-16839", "dn-volume-failure", "out-of-space", "long-jvm-pause"} {
		if !strings.Contains(dom, d) {
			t.Errorf("DOM lacks %s", d)
		}
	}
	overview := dom[strings.Index(dom, `id="tl-overview"`):]
	overview = overview[:strings.Index(overview, "</figure>")]
	if n := strings.Count(overview, `class="lanelabel"`); n != 13 {
		t.Errorf("overview has %d host lanes, want 13", n)
	}
	if strings.Contains(dom, `class="zoom" role="group" aria-label="Zoom the timeline" hidden`) {
		t.Error("the script did not show the zoom controls")
	}
	if strings.Contains(dom, `class="copy" hidden`) || !strings.Contains(dom, `class="copy" aria-label="Copy command: `) {
		t.Error("the script did not show the copy buttons")
	}
	// the zoom redrew the axis: the page's own ticks carry data-u, the
	// script's do not
	if strings.Contains(overview, `<g class="tick" data-u=`) || !strings.Contains(overview, `<g class="tick"><line`) {
		t.Error("the zoomed overview still shows the page's own ticks")
	}

	// A screenshot of the report itself is a picture, not a blank page.
	shot := filepath.Join(dir, "report.png")
	_, stderr = runChromium(t, bin, "--window-size=1400,2200", "--screenshot="+shot, "file://"+report)
	if lines := consoleLines(stderr); len(lines) > 0 {
		t.Errorf("console output while taking the screenshot:\n%s", strings.Join(lines, "\n"))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	inked, colours := ink(img)
	t.Logf("screenshot %v: %.1f%% non-background pixels, %d distinct colours", img.Bounds().Size(), inked*100, colours)
	if inked < 0.02 || colours < 8 {
		t.Errorf("the screenshot looks blank: %.1f%% non-background pixels, %d colours", inked*100, colours)
	}
	if os.Getenv("OZDOCTOR_KEEP_SCREENSHOT") != "" {
		os.WriteFile(os.Getenv("OZDOCTOR_KEEP_SCREENSHOT"), mustRead(t, shot), 0o644)
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ink returns the share of pixels that differ from the most common colour,
// and how many distinct colours (at 4 bits a channel) the image holds.
func ink(img image.Image) (float64, int) {
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 12), uint8(g >> 12), uint8(bl >> 12), 0}]++
		}
	}
	top := 0
	for _, n := range count {
		top = max(top, n)
	}
	total := b.Dx() * b.Dy()
	return float64(total-top) / float64(total), len(count)
}
