// The edge from a box of a laid-out tree to one of its children: a curve from the middle of the box's bottom to
// the middle of the child's top (4 px short, for the arrow head). Shared by the views that draw such trees.
import { Box } from './parallelStacks';

/** The SVG path data of the edge from {@code box} to {@code child}, as placed by the layout. */
export function edgePath(box: Box, child: Box): string {
  const x1 = box.x + box.width / 2;
  const y1 = box.y + box.height;
  const x2 = child.x + child.width / 2;
  const y2 = child.y;
  const mid = (y1 + y2) / 2;
  return `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2 - 4}`;
}
