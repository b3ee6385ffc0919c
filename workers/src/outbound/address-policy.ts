/**
 * Which IP addresses and names `http_request` may reach (docs/outbound.md#public-unicast). The
 * rules live in @skillgate/sandbox-protocol, so that the sandbox host's egress proxy (the
 * `browser` builtin) applies exactly the same ones.
 */
export {
  type AddressVerdict,
  checkAddress,
  isIpLiteral,
  refusedNameReason,
} from "@skillgate/sandbox-protocol";
