package main

// wordBreaksJS(sel) lists the elements matching sel (headers and labels,
// not running text: Chinese and Japanese prose may break between any two
// characters) whose text the browser broke across lines inside a word:
// between two characters of one text that are not a word boundary by the
// page language's own segmentation (Intl.Segmenter, with ICU's dictionaries
// for Chinese and Japanese) and neither a space nor after a hyphen or slash,
// or before a small kana, a prolonged sound mark or closing punctuation.
// The lines are read from the client rects of each character, so the check
// is on what Chromium drew, not on the CSS. Code (URLs, ids) may break
// anywhere and is left out. It is a function expression: call it as
// wordBreaksJS + "('th')".
const wordBreaksJS = `(function (sel) {
  var out = [], lang = document.documentElement.lang || 'en';
  var seg = new Intl.Segmenter(lang, {granularity: 'word'});
  var small = /^[ァィゥェォッャュョヮヵヶぁぃぅぇぉっゃゅょゎー、。，）」』：；！？]/;
  document.querySelectorAll(sel).forEach(function (el) {
    if (el.offsetParent === null) { return; }
    var w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), n, bad = '';
    while (!bad && (n = w.nextNode())) {
      if (n.parentElement.closest('code')) { continue; }
      var bounds = {}, top = null;
      for (const s of seg.segment(n.data)) { bounds[s.index] = true; }
      for (var i = 0; i < n.data.length; i++) {
        var r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
        var rs = r.getClientRects(); if (!rs.length || rs[0].width === 0) { continue; }
        if (top !== null && rs[0].top > top + 2) {
          var j = i - 1; while (j > 0 && /\s/.test(n.data[j])) { j--; }
          var a = n.data[j], b = n.data[i];
          if (j === i - 1 && !bounds[i] && a !== '-' && a !== '/') { bad = 'breaks inside a word before "' + n.data.slice(i) + '"'; }
          else if (small.test(b)) { bad = 'starts a line with ' + b; }
          if (bad) { break; }
        }
        top = rs[0].top;
      }
    }
    if (bad) { out.push(el.tagName.toLowerCase() + ' "' + el.textContent.trim() + '" ' + bad); }
  });
  return out;
})`
