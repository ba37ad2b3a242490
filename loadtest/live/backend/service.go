package backend

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/orca"
	"google.golang.org/protobuf/types/known/emptypb"
)

// caller is what the service description dispatches to.
type caller interface {
	serve(ctx context.Context) error
}

// serviceDesc describes artt.live.Backend by hand: one unary method whose
// request and answer are empty, so the harness needs no generated code.
var serviceDesc = grpc.ServiceDesc{
	ServiceName: "artt.live.Backend",
	HandlerType: (*caller)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Call",
		Handler: func(srv any, ctx context.Context, dec func(any) error, intercept grpc.UnaryServerInterceptor) (any, error) {
			in := new(emptypb.Empty)
			if err := dec(in); err != nil {
				return nil, err
			}
			handle := func(ctx context.Context, _ any) (any, error) {
				// ORCA's interceptor writes the pod's load report into the
				// answer's trailer only for a call that asked for its
				// recorder; without one, weighted round robin is plain
				// round robin.
				orca.CallMetricsRecorderFromContext(ctx)
				if err := srv.(caller).serve(ctx); err != nil {
					return nil, err
				}
				return &emptypb.Empty{}, nil
			}
			if intercept == nil {
				return handle(ctx, in)
			}
			return intercept(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: Method}, handle)
		},
	}},
}

// Call makes one request on conn.
func Call(ctx context.Context, conn *grpc.ClientConn) error {
	return conn.Invoke(ctx, Method, &emptypb.Empty{}, &emptypb.Empty{})
}
