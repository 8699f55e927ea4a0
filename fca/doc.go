// Package fca turns NLR sequences into formal concepts and measures how alike
// traces are, as in seeds/002 §3.2.5 and §3.3.2 (Tables 3.4 and 3.5,
// Figs. 3.3 and 3.4).
//
// The stages are:
//
//   - attributes: each trace's top-level NLR entries become attributes, single
//     entries or consecutive pairs, with or without their frequency (Mode);
//   - the formal context: traces × attributes as bitsets, with traces of equal
//     attribute sets collapsed into one equivalence class (Context);
//   - Godin's incremental concept lattice over the classes (Lattice);
//   - the Jaccard similarity matrix, read off the lattice (JSM), and the
//     matrices a heatmap shows (Panel).
//
// fca draws nothing: draw/hasse draws a lattice as a Hasse diagram (DOT,
// SVG, PNG), draw/heatmap draws Panels as heatmaps (PNG, SVG).
//
// Order convention: a concept (A, B) has extent A (objects) and intent B
// (attributes); (A1, B1) ≤ (A2, B2) when A1 ⊆ A2, equivalently B1 ⊇ B2. The top
// holds every object and the attributes they all share; the bottom holds every
// attribute. A concept's parents (upper covers) have smaller intents.
package fca
