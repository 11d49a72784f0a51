/**
 * What the probe and template screens share: the labels shown for the API's field names (which
 * are terse), and the path of templates.
 */
import { vendorProbe, vendorProbeTemplate } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';

export const TEMPLATES_PATH = listPath(vendorProbeTemplate);
export const VENDOR_PROBES_PATH = listPath(vendorProbe);

export const PARAMETER_LABELS: Readonly<Record<string, string>> = {
  descr: 'Description',
  parent_tmpl: 'Template',
  home_net: 'Home networks',
  external_net: 'External networks',
  pcap_capture: 'Full packet capture',
  log_retention_days: 'Log retention (days)',
  ntp_server: 'NTP server',
  dns_server: 'DNS server',
};

/** A template's own parent is its "parent template"; a probe's is its "template". */
export const TEMPLATE_LABELS: Readonly<Record<string, string>> = { ...PARAMETER_LABELS, parent_tmpl: 'Parent template' };
