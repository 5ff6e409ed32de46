// The ECharts build the archive browser's run pages load
// (assets/echarts.min.js): only the chart types and components
// benchledger's charts use, drawn with the SVG renderer. Bundled by
// scripts/fetch-echarts.sh with esbuild into render/assets/echarts/
// (git-ignored), from the pinned npm tarballs. A chart kind that needs more
// adds it here; render/svg's TestSiteBundleDrawsEveryChart fails until it
// does (it draws every golden chart option with this build and with the
// full one and wants the same SVG).
import { use } from 'echarts/core';
import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent,
  DatasetComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';

use([
  BarChart, LineChart, ScatterChart,
  DataZoomComponent, DatasetComponent, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent,
  MarkPointComponent, TitleComponent, TooltipComponent,
  SVGRenderer,
]);

export * from 'echarts/core';
