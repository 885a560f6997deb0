/* PCIe link speeds and widths (probe_bandwidth.c). */
#ifndef ROCMCHECK_PCIE_H
#define ROCMCHECK_PCIE_H


/* PCIe: "16.0 GT/s PCIe" or "8 GT/s" -> GT/s (0 unknown); "16" -> lanes (0
 * unknown); the payload bandwidth of a link per direction in GB/s after
 * line encoding (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s, FLIT at 64). */
double pcie_speed_gts(const char *s);
unsigned pcie_width(const char *s);
double pcie_link_gbs(double gts, unsigned width);
unsigned pcie_gen(double gts);

#endif
